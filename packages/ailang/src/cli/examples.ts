import { lstatSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { compareStrings } from '../runtime/values.js';
import type { CommandOutput } from './check-output.js';

/**
 * The examples corpus commands of the embedded toolchain (world-spec §3.7): the operator's
 * corpus directory (manifest.json plus runnable/) is searched, listed and shown. Only `.ail`
 * files are considered, symlinks are never followed (the corpus stays what the operator put
 * there), and nothing outside the corpus is read.
 */

/** The refusal when no corpus is configured (world-spec §3.7, exact text). */
export const NO_CORPUS_REFUSAL =
  'no examples corpus configured: start ailang-worldd serve with --examples-dir DIR (an AILANG examples corpus: manifest.json plus runnable/; `ailang examples download` makes one at ~/.ailang/examples)';

/** Every `.ail` file of a corpus, as slash-separated relative paths, sorted. */
function corpusFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const name of names) {
      const full = join(d, name);
      const st = lstatSync(full);
      if (st.isSymbolicLink()) continue;
      if (st.isDirectory()) walk(full);
      else if (st.isFile() && name.endsWith('.ail'))
        out.push(relative(dir, full).split(sep).join('/'));
    }
  };
  walk(dir);
  return out.sort(compareStrings);
}

/**
 * `examples search <query>`: case-insensitive substring match over each example's path and
 * lines; one hit per file (its first matching line), at most `maxHits` (AILANG_EXAMPLES_MAX_HITS).
 */
export function examplesSearch(dir: string, query: string, maxHits: number): CommandOutput {
  const q = query.toLowerCase();
  const hits: string[] = [];
  let total = 0;
  for (const rel of corpusFiles(dir)) {
    const text = readFileSync(join(dir, rel), 'utf8');
    const lines = text.split('\n');
    const index = lines.findIndex((l) => l.toLowerCase().includes(q));
    if (index < 0 && !rel.toLowerCase().includes(q)) continue;
    total++;
    if (hits.length < maxHits) {
      hits.push(
        index < 0 ? `${rel}: (file name matches)` : `${rel}:${index + 1}: ${lines[index]!.trim()}`,
      );
    }
  }
  if (total === 0) return { exitCode: 0, stdout: `No examples match "${query}".\n`, stderr: '' };
  const head =
    total > hits.length
      ? `${total} examples match "${query}" (showing the first ${hits.length}):\n`
      : `${total} example${total === 1 ? ' matches' : 's match'} "${query}":\n`;
  return { exitCode: 0, stdout: head + hits.map((h) => `${h}\n`).join(''), stderr: '' };
}

/** `examples list`: every example path. */
export function examplesList(dir: string): CommandOutput {
  const files = corpusFiles(dir);
  return {
    exitCode: 0,
    stdout: `${files.length} examples:\n${files.map((f) => `${f}\n`).join('')}`,
    stderr: '',
  };
}

/** `examples show <name>`: an example by relative path, or by file name without `.ail`. */
export function examplesShow(dir: string, name: string): CommandOutput {
  const files = corpusFiles(dir);
  const wanted = name.endsWith('.ail') ? name : `${name}.ail`;
  const match = files.filter((f) => f === name || f === wanted || f.endsWith(`/${wanted}`));
  if (match.length !== 1) {
    const why =
      match.length === 0
        ? `no example named ${name}`
        : `${match.length} examples are named ${name}: ${match.join(', ')}`;
    return { exitCode: 1, stdout: '', stderr: `Error: ${why}\n` };
  }
  return { exitCode: 0, stdout: readFileSync(join(dir, match[0]!), 'utf8'), stderr: '' };
}
