/**
 * ARCHITECTURE.md names the code as it is (the promise of its first paragraph): every backticked
 * path exists, every backticked subject is a contract of packages/contracts/src/subjects.ts,
 * every backticked name occurs in the source, a name written next to its file — `Name`
 * (`path.ts`) — occurs in that file, and each row of the laws table names functions found in its
 * files. A rename or a move that leaves the document behind fails here.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const DOC = 'ARCHITECTURE.md';
/** Folders that hold no authored source. */
const SKIP = new Set([
  'node_modules',
  'dist',
  '.git',
  '.turbo',
  '.jest-cache',
  '.world',
  'results',
]);

function files(dir: string, test: (path: string) => boolean, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files(path, test, out);
    else if (test(path)) out.push(path);
  }
  return out;
}

const doc = readFileSync(join(root, DOC), 'utf8');
/** Every backticked span of the document, in order. */
const spans = [...doc.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
/** Repository files by base name (a bare `effects.int-spec.ts` must name one of them). */
const byName = new Set(files(root, (p) => !p.includes('/.')).map((p) => basename(p)));
/** The TypeScript sources and tests of the apps and packages: where names must occur. */
const source = ['apps', 'packages']
  .flatMap((dir) => files(join(root, dir), (p) => p.endsWith('.ts')))
  .map((p) => readFileSync(p, 'utf8'))
  .join('\n');
const subjects = new Set(
  [
    ...readFileSync(join(root, 'packages/contracts/src/subjects.ts'), 'utf8').matchAll(
      /^ {2}'([a-z]+\.[A-Za-z.]+)': /gm,
    ),
  ].map((m) => m[1]!),
);

/** A repository path: under a top folder (`tools/` only with a file name: `tools/call` is MCP's), or a file name. */
const PATH = /^(apps|packages|bench|infra|scripts)\/|^tools\/.*\.\w+$|^[\w.-]+\.(ts|md|yml|json)$/;
const SUBJECT = /^(ledger|broker|planner)\.[A-Za-z.*]+$/;
const NAME = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/;

const word = (name: string) => new RegExp(`(^|[^\\w$])${name.replace(/\$/g, '\\$')}($|[^\\w$])`);

/** Whether a backticked path exists: a file or folder from the root, or a file's base name. */
function pathExists(path: string): boolean {
  // A placeholder (`packages/tools/src/<id>.ts`) names its folder.
  const real = path.includes('<') ? path.slice(0, path.lastIndexOf('/', path.indexOf('<'))) : path;
  if (!real.includes('/')) return byName.has(real);
  return existsSync(join(root, real));
}

/** Whether a subject, or a `prefix.*` family of subjects, is in the contract table. */
function subjectExists(subject: string): boolean {
  if (!subject.includes('*')) return subjects.has(subject);
  const prefix = subject.slice(0, subject.indexOf('*'));
  return [...subjects].some((s) => s.startsWith(prefix));
}

describe(`${DOC} names the code as it is`, () => {
  it('is linked from README.md and DESIGN.md', () => {
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toContain(`](${DOC})`);
    expect(readFileSync(join(root, 'DESIGN.md'), 'utf8')).toContain(DOC);
  });

  it('every backticked path exists', () => {
    const paths = spans.filter((s) => PATH.test(s));
    expect(paths.filter((p) => !pathExists(p))).toEqual([]);
    // The document walks the code by its files.
    expect(paths.length).toBeGreaterThan(100);
  });

  it('every backticked subject is a contract of subjects.ts', () => {
    const cited = spans.filter((s) => SUBJECT.test(s));
    expect(cited.filter((s) => !subjectExists(s))).toEqual([]);
    expect(cited.length).toBeGreaterThan(20);
  });

  it('every backticked name occurs in the sources and tests of apps/ and packages/', () => {
    const names = spans.filter((s) => NAME.test(s) && !SUBJECT.test(s) && !PATH.test(s));
    const missing = names.filter((n) => n.split('.').some((part) => !word(part).test(source)));
    expect([...new Set(missing)]).toEqual([]);
    expect(names.length).toBeGreaterThan(150);
  });

  it('a name written beside its file occurs in that file', () => {
    const pairs = [
      ...doc.matchAll(/`([A-Za-z_$][\w$.]*)`\s+\(`((?:apps|packages)\/[^`\s]+\.ts)`/g),
      ...doc.matchAll(/`([A-Za-z_$][\w$.]*)`,\s+`((?:apps|packages)\/[^`\s]+\.ts)`/g),
    ].map((m) => [m[1]!, m[2]!] as const);
    const wrong = pairs.filter(([name, path]) => {
      const text = readFileSync(join(root, path), 'utf8');
      return name.split('.').some((part) => !word(part).test(text));
    });
    expect(wrong).toEqual([]);
    expect(pairs.length).toBeGreaterThan(20);
  });

  it('each law of the table lives in the files its row names, and its tests exist', () => {
    const section = doc.slice(doc.indexOf('## 5. '), doc.indexOf('## 6. '));
    const rows = section
      .split('\n')
      .filter((line) => line.startsWith('| ') && !/^\| (law|-)/.test(line))
      .map((line) =>
        line.split('|').map((cell) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!)),
      );
    const wrong: string[] = [];
    for (const [, , functions, paths, tests] of rows) {
      const texts = paths!.map((p) => readFileSync(join(root, p), 'utf8'));
      for (const fn of functions!) {
        const head = fn.split('.')[0]!;
        if (!texts.some((t) => word(head).test(t))) wrong.push(`${fn} in ${paths!.join(', ')}`);
      }
      for (const test of tests!)
        if (!statSync(join(root, test), { throwIfNoEntry: false })?.isFile()) wrong.push(test);
    }
    expect(wrong).toEqual([]);
    expect(rows.length).toBeGreaterThanOrEqual(18);
  });
});
