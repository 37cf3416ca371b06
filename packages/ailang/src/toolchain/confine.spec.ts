import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReadFailure } from '../lang/program.js';
import { pathRefusal, worktreeReader } from './confine.js';

let base: string;
let wt: string;

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'toolchain-confine-')));
  wt = join(base, 'wt');
  mkdirSync(join(wt, 'lib'), { recursive: true });
  writeFileSync(join(wt, 'lib', 'util.ail'), 'module lib/util\n');
  writeFileSync(join(base, 'secret.ail'), 'module secret\n');
  linkSync(join(base, 'secret.ail'), join(wt, 'hard.ail'));
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

/** What the reader answers: the text, or the ReadFailure's message. */
function read(rel: string): string {
  try {
    return `text ${worktreeReader(wt).read(rel)}`;
  } catch (e) {
    if (e instanceof ReadFailure) return `failure ${e.message}`;
    throw e;
  }
}

/**
 * The module reader of ailang-check, runs and imports (ailang.md §1.5 "Entry file rule";
 * world-spec §8.2): World's one confinement rule, then the race-free open, in Go's words.
 */
describe('worktreeReader: module files confined to the worktree (world-spec §8.2)', () => {
  it.each<[string, string, string]>([
    ['a module inside', 'lib/util.ail', 'text module lib/util\n'],
    ['a missing module', 'nope.ail', 'failure open nope.ail: no such file or directory'],
    ['a directory', 'lib', 'failure read lib: is a directory'],
    [
      'a path under a file, in Go words (no host path)',
      'lib/util.ail/x.ail',
      'failure open lib/util.ail/x.ail: not a directory',
    ],
    [
      'a ../ escape',
      '../secret.ail',
      'failure open ../secret.ail: path "../secret.ail" escapes sandbox "<wt>"',
    ],
    [
      'a hard link to a file outside',
      'hard.ail',
      'failure open hard.ail: path "hard.ail" escapes sandbox "<wt>": it has 2 hard links',
    ],
  ])('%s: %j', (_why, rel, expected) => {
    expect(read(rel)).toBe(expected.replace('<wt>', wt));
  });
});

describe('pathRefusal: the paths toolchain operations receive (world-spec §8.2 "Flag injection")', () => {
  it.each<[string, string, string | null]>([
    ['a path inside', 'lib/util.ail', null],
    ['a flag-like path', '-x.ail', 'run -x.ail: path "-x.ail" looks like a flag'],
    ['an empty path', '', 'run: path is empty'],
    [
      'an absolute path outside',
      '/etc/hosts',
      'run /etc/hosts: path "/etc/hosts" escapes sandbox "<wt>"',
    ],
  ])('%s: %j', (_why, path, expected) => {
    expect(pathRefusal('run', path, wt)).toBe(expected?.replace('<wt>', wt) ?? null);
  });
});
