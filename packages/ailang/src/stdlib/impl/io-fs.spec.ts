import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Sandbox, SandboxViolation } from '../../runtime/sandbox.js';
import type { RuntimeApi, Value } from '../../runtime/values.js';
import { FS_IMPLS } from './io-fs.js';

/**
 * A program's file operations when the worktree changes between the sandbox's check and the
 * open (TOCTOU, world-spec §8.2 "confinement must not be escaped"): a sandbox whose resolve
 * swaps a directory or file for a symlink out right after judging the path, as a concurrent
 * writer of the worktree would. Nothing outside may change, and the program gets the escape.
 */
class RacingSandbox extends Sandbox {
  swap: (() => void) | undefined;
  override resolve(op: string, p: string, mode: 'read' | 'write'): string {
    const abs = super.resolve(op, p, mode);
    this.swap?.();
    this.swap = undefined;
    return abs;
  }
  override resolveName(op: string, p: string): string {
    const abs = super.resolveName(op, p);
    this.swap?.();
    this.swap = undefined;
    return abs;
  }
}

describe('std/fs builtins against a path swapped after the check (confine/open.ts)', () => {
  let base: string;
  let wt: string;
  let out: string;
  let sb: RacingSandbox;
  let rt: RuntimeApi;
  const call = (name: string, ...args: string[]): Value => FS_IMPLS[name]!(args as Value[], rt);
  const escape = (op: string, p: string) =>
    new SandboxViolation(`${op}: path "${p}" escapes sandbox "${wt}"`);
  const swapDir = () => {
    rmSync(join(wt, 'd'), { recursive: true });
    symlinkSync(out, join(wt, 'd'));
  };

  beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'ailang-race-')));
    wt = join(base, 'wt');
    out = join(base, 'out');
    mkdirSync(join(wt, 'd'), { recursive: true });
    writeFileSync(join(wt, 'd', 'f.txt'), 'inside\n');
    mkdirSync(out);
    writeFileSync(join(out, 'f.txt'), 'outside\n');
    sb = new RacingSandbox({
      root: wt,
      denyWrite: [],
      transferMax: 1 << 20,
      securityMode: 'restricted',
    });
    rt = {
      apply: () => undefined as never,
      host: { charge: () => undefined, sandbox: sb } as never,
    };
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it.each([
    ['_fs_writeFile', ['d/f.txt', 'pwned\n'], 'writeFile'],
    ['std/fs.appendFile', ['d/f.txt', 'pwned\n'], 'appendFile'],
    ['_fs_readFile', ['d/f.txt'], 'readFile'],
  ])(
    '%s through a directory swapped for a link out is an escape; the outside file is untouched',
    (name, args, op) => {
      sb.swap = swapDir;
      expect(() => call(name, ...args)).toThrow(escape(op, 'd/f.txt'));
      expect(readFileSync(join(out, 'f.txt'), 'utf8')).toBe('outside\n');
    },
  );

  it('writeFile to a file swapped for a link out is an escape', () => {
    sb.swap = () => {
      rmSync(join(wt, 'd', 'f.txt'));
      symlinkSync(join(out, 'f.txt'), join(wt, 'd', 'f.txt'));
    };
    expect(() => call('_fs_writeFile', 'd/f.txt', 'pwned\n')).toThrow(
      escape('writeFile', 'd/f.txt'),
    );
    expect(readFileSync(join(out, 'f.txt'), 'utf8')).toBe('outside\n');
  });

  it.each([
    ['std/fs.mkdirAll', ['d/x/y'], 'mkdirAll', 'd/x/y', 'x'],
    ['std/fs.mkdir', ['d/x'], 'mkdir', 'd/x', 'x'],
    ['std/fs.removeFile', ['d/f.txt'], 'removeFile', 'd/f.txt', 'f.txt'],
    ['std/fs.renameFile', ['d/f.txt', 'g.txt'], 'renameFile', 'd/f.txt', 'f.txt'],
  ])('%s through a swapped directory changes nothing outside', (name, args, op, p, probe) => {
    sb.swap = swapDir;
    expect(() => call(name, ...args)).toThrow(escape(op, p));
    expect([existsSync(join(out, probe)), readFileSync(join(out, 'f.txt'), 'utf8')]).toEqual([
      probe === 'f.txt',
      'outside\n',
    ]);
  });

  it('removeFile and renameFile of a symlink inside act on the link, never its target', () => {
    symlinkSync(join(wt, 'd', 'f.txt'), join(wt, 'link'));
    symlinkSync('d/f.txt', join(wt, 'link2'));
    call('std/fs.renameFile', 'link2', 'moved');
    call('std/fs.removeFile', 'link');
    expect([
      existsSync(join(wt, 'link')),
      existsSync(join(wt, 'link2')),
      readlinkSync(join(wt, 'moved')),
      readFileSync(join(wt, 'd', 'f.txt'), 'utf8'),
    ]).toEqual([false, false, 'd/f.txt', 'inside\n']);
  });

  it('removeFile of a symlink pointing outside is an escape, like every operation on it', () => {
    symlinkSync(join(out, 'f.txt'), join(wt, 'out-link'));
    expect(() => call('std/fs.removeFile', 'out-link')).toThrow(escape('removeFile', 'out-link'));
    expect([readlinkSync(join(wt, 'out-link')), readFileSync(join(out, 'f.txt'), 'utf8')]).toEqual([
      join(out, 'f.txt'),
      'outside\n',
    ]);
  });
});
