/**
 * Code and docs cite documents that ship with the repository (CONVENTIONS "Docs in code"): every
 * `DESIGN.md §N` (or `§7.N`, an item of §7's numbered list) in a source or doc file names a
 * section of the repository's own DESIGN.md.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '../../..');
/** Folders that hold no authored text: installs, builds, caches, results. */
const SKIP = new Set([
  'node_modules',
  'dist',
  '.git',
  '.turbo',
  '.jest-cache',
  '.world',
  'coverage',
  'results',
]);
const TEXT = /\.(ts|js|mjs|cjs|md|sh|yml|yaml|json|conf)$|(^|\/)Dockerfile$/;
/** A citation: the file name, then one or more sections joined by commas, semicolons or "and". */
const CITATION =
  /DESIGN\.md((?:,? ?§\d+[a-z]?(?:\.\d+)?)(?:(?:, ?|; ?| and )§\d+[a-z]?(?:\.\d+)?)*)/g;

function files(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files(path, out);
    else if (TEXT.test(path)) out.push(path);
  }
  return out;
}

/** The sections of DESIGN.md: `## N.` headings, and `7.N` for each item of §7's list. */
function sections(design: string): Set<string> {
  const out = new Set<string>();
  let current = '';
  for (const line of design.split('\n')) {
    const heading = /^## (\d+[a-z]?)\. /.exec(line);
    if (heading) {
      current = heading[1]!;
      out.add(current);
      continue;
    }
    const item = /^(\d+)\. /.exec(line);
    if (item && current === '7') out.add(`7.${item[1]}`);
  }
  return out;
}

describe('citations of DESIGN.md', () => {
  const known = sections(readFileSync(join(root, 'DESIGN.md'), 'utf8'));

  it('DESIGN.md ships with the repository and has its sections 1–7 and the items of §7', () => {
    expect([...known].filter((s) => !s.includes('.'))).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
      '5a',
      '6',
      '7',
    ]);
    expect([...known].filter((s) => s.startsWith('7.'))).toEqual(
      Array.from({ length: 9 }, (_, i) => `7.${i + 1}`),
    );
  });

  it('every DESIGN.md § citation in the repository names one of its sections', () => {
    const cited: string[] = [];
    const dangling: string[] = [];
    for (const file of files(root)) {
      for (const m of readFileSync(file, 'utf8').matchAll(CITATION))
        for (const s of m[1]!.matchAll(/§(\d+[a-z]?(?:\.\d+)?)/g)) {
          cited.push(s[1]!);
          if (!known.has(s[1]!)) dangling.push(`${file.slice(root.length + 1)}: §${s[1]}`);
        }
    }
    expect(dangling).toEqual([]);
    // The scan found the citations it checks (the code cites the design throughout).
    expect(cited.length).toBeGreaterThan(100);
  });
});
