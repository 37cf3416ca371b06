import {
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmdirSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs';
import {
  fdPath,
  openConfinedFile,
  openDirectory,
  openParent,
  probeConfined,
} from '../../confine/open.js';
import { hasExtraLinks } from '../../confine/rules.js';
import { NOT_REGULAR, readRegularText } from '../../runtime/regular-file.js';
import { IoFailure, type Sandbox } from '../../runtime/sandbox.js';
import {
  AilRuntimeError,
  ExitRequest,
  NONE,
  UNIT_V,
  compareStrings,
  err,
  listFrom,
  ok,
  some,
  type BuiltinImpl,
  type RuntimeApi,
  type Value,
} from '../../runtime/values.js';
import { int, str } from './common.js';

/**
 * std/io and std/fs (stdlib/catalogue/io-fs.ts). Each operation first charges its effect
 * (capability, then budget) through the host; file operations resolve paths through the sandbox
 * (ailang.md §1.5 runtime confinement).
 */

function io(rt: RuntimeApi): void {
  rt.host.charge('IO');
}

export const IO_IMPLS: Record<string, BuiltinImpl> = {
  _io_print: ([s], rt) => (io(rt), rt.host.stdout(str(s!)), UNIT_V),
  _io_println: ([s], rt) => (io(rt), rt.host.stdout(`${str(s!)}\n`), UNIT_V),
  _io_printErr: ([s], rt) => (io(rt), rt.host.stderr(str(s!)), UNIT_V),
  _io_eprintln: ([s], rt) => (io(rt), rt.host.stderr(`${str(s!)}\n`), UNIT_V),
  _io_readLine: (_a, rt) => (io(rt), rt.host.readLine() ?? ''),
  'std/io.readLineOpt': (_a, rt) => {
    io(rt);
    const line = rt.host.readLine();
    return line === null ? NONE : some(line);
  },
  _io_flush: (_a, rt) => (io(rt), UNIT_V),
  _io_exit: ([code], rt) => {
    io(rt);
    throw new ExitRequest(Number(BigInt.asUintN(8, int(code!))));
  },
};

const ERRNO_TEXT: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EEXIST: 'file exists',
  ENOTDIR: 'not a directory',
  EISDIR: 'is a directory',
  ENOTEMPTY: 'directory not empty',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  [NOT_REGULAR]: 'not a regular file',
};

/** Go-style `open notes.txt: no such file or directory`. */
function ioError(op: string, verb: string, p: string, e: unknown): IoFailure {
  const code = (e as NodeJS.ErrnoException).code ?? '';
  const text = ERRNO_TEXT[code] ?? (e as Error).message;
  return new IoFailure(`${op}: ${verb} ${p}: ${text}`);
}

function sandbox(rt: RuntimeApi, op: string): Sandbox {
  rt.host.charge('FS');
  const sb = rt.host.sandbox;
  if (sb === null) throw new AilRuntimeError(`${op}: no fs_sandbox is configured for this run`);
  return sb;
}

function readText(rt: RuntimeApi, op: string, p: string): string {
  const sb = sandbox(rt, op);
  const real = sb.resolve(op, p, 'read');
  try {
    return sb.guard(op, p, () =>
      readRegularText(
        real,
        (size) => sb.transfer(op, size),
        (flags) => openConfinedFile(sb.realRoot, sb.segmentsOf(real), flags),
      ),
    );
  } catch (e) {
    if (e instanceof AilRuntimeError) throw e;
    throw ioError(op, (e as NodeJS.ErrnoException).code === 'EISDIR' ? 'read' : 'open', p, e);
  }
}

function writeText(rt: RuntimeApi, op: string, p: string, content: string, append: boolean): void {
  const sb = sandbox(rt, op);
  const real = sb.resolve(op, p, 'write');
  sb.transfer(op, Buffer.byteLength(content, 'utf8'));
  try {
    sb.guard(op, p, () => {
      // Opened without truncating: a file that became a hard link after the check is refused
      // before a byte of it changes.
      const fd = openConfinedFile(
        sb.realRoot,
        sb.segmentsOf(real),
        constants.O_WRONLY | constants.O_CREAT | (append ? constants.O_APPEND : 0),
      );
      try {
        const st = fstatSync(fd);
        if (hasExtraLinks(st)) sb.refuse(op, p, { kind: 'links', links: st.nlink });
        if (!append) ftruncateSync(fd, 0);
        writeSync(fd, content, null, 'utf8');
      } finally {
        closeSync(fd);
      }
    });
  } catch (e) {
    if (e instanceof AilRuntimeError) throw e;
    throw ioError(op, 'open', p, e);
  }
}

/** Runs f on a resolved path's name held through its parent's descriptor (confine/open.ts). */
function inParent<T>(sb: Sandbox, op: string, p: string, real: string, f: (at: string) => T): T {
  return sb.guard(op, p, () => {
    const held = openParent(sb.realRoot, sb.segmentsOf(real), false);
    try {
      return f(held.path);
    } finally {
      held.close();
    }
  });
}

/** Runs f on a resolved directory's path held open from the root (confine/open.ts). */
function inDirectory<T>(
  sb: Sandbox,
  op: string,
  p: string,
  real: string,
  create: boolean,
  f: (at: string) => T,
): T {
  return sb.guard(op, p, () => {
    const fd = openDirectory(sb.realRoot, sb.segmentsOf(real), create);
    try {
      return f(fdPath(fd));
    } finally {
      closeSync(fd);
    }
  });
}

/** removeFile / renameFile: the name itself (Sandbox.resolveName), never a link's target. */
function withName<T>(rt: RuntimeApi, op: string, p: string, verb: string, f: (at: string) => T): T {
  const sb = sandbox(rt, op);
  const real = sb.resolveName(op, p);
  try {
    return inParent(sb, op, p, real, f);
  } catch (e) {
    if (e instanceof AilRuntimeError) throw e;
    throw ioError(op, verb, p, e);
  }
}

function withPath<T>(
  rt: RuntimeApi,
  op: string,
  p: string,
  mode: 'read' | 'write',
  verb: string,
  f: (real: string) => T,
): T {
  const real = sandbox(rt, op).resolve(op, p, mode);
  try {
    return f(real);
  } catch (e) {
    if (e instanceof AilRuntimeError) throw e;
    throw ioError(op, verb, p, e);
  }
}

/** fileExists / isDir / isFile: the lstat of the resolved name, seen from its parent (open.ts). */
function probe(rt: RuntimeApi, op: string, p: string, f: (st: Stats | null) => boolean): Value {
  const sb = sandbox(rt, op);
  const real = sb.resolve(op, p, 'read');
  return sb.guard(op, p, () => f(probeConfined(sb.realRoot, sb.segmentsOf(real))));
}

/** Removes a name: an empty directory, else the file or symlink itself (lstat: never its target). */
function removePath(at: string): void {
  if (lstatSync(at).isDirectory()) rmdirSync(at);
  else unlinkSync(at);
}

/** mkdirAll: every missing directory made through the one before it (confine/open.ts). */
function mkdirAllIn(rt: RuntimeApi, op: string, p: string): Value {
  const sb = sandbox(rt, op);
  const real = sb.resolve(op, p, 'write');
  try {
    inDirectory(sb, op, p, real, true, () => undefined);
  } catch (e) {
    if (e instanceof AilRuntimeError) throw e;
    throw ioError(op, 'mkdir', p, e);
  }
  return UNIT_V;
}

/** `*Result` variants: ordinary I/O failures become Err(message); sandbox refusals stay fatal. */
function result(f: () => Value): Value {
  try {
    return ok(f());
  } catch (e) {
    if (e instanceof IoFailure) return err(e.message);
    throw e;
  }
}

export const FS_IMPLS: Record<string, BuiltinImpl> = {
  _fs_readFile: ([p], rt) => readText(rt, 'readFile', str(p!)),
  _fs_writeFile: ([p, c], rt) => (writeText(rt, 'writeFile', str(p!), str(c!), false), UNIT_V),
  'std/fs.appendFile': ([p, c], rt) => (
    writeText(rt, 'appendFile', str(p!), str(c!), true),
    UNIT_V
  ),
  _fs_exists: ([p], rt) => probe(rt, 'fileExists', str(p!), (st) => st !== null),
  'std/fs.listDir': ([p], rt) =>
    withPath(rt, 'listDir', str(p!), 'read', 'open', (real) =>
      inDirectory(sandbox(rt, 'listDir'), 'listDir', str(p!), real, false, (at) =>
        listFrom(readdirSync(at).sort(compareStrings)),
      ),
    ),
  'std/fs.mkdir': ([p], rt) =>
    withPath(rt, 'mkdir', str(p!), 'write', 'mkdir', (real) =>
      inParent(sandbox(rt, 'mkdir'), 'mkdir', str(p!), real, (at) => (mkdirSync(at), UNIT_V)),
    ),
  'std/fs.mkdirAll': ([p], rt) => mkdirAllIn(rt, 'mkdirAll', str(p!)),
  'std/fs.isDir': ([p], rt) => probe(rt, 'isDir', str(p!), (st) => st?.isDirectory() === true),
  'std/fs.isFile': ([p], rt) => probe(rt, 'isFile', str(p!), (st) => st?.isFile() === true),
  'std/fs.removeFile': ([p], rt) =>
    withName(rt, 'removeFile', str(p!), 'remove', (at) => (removePath(at), UNIT_V)),
  'std/fs.renameFile': ([a, b], rt) => {
    const sb = sandbox(rt, 'renameFile');
    const from = sb.resolveName('renameFile', str(a!));
    const to = sb.resolveName('renameFile', str(b!));
    try {
      inParent(sb, 'renameFile', str(a!), from, (src) =>
        inParent(sb, 'renameFile', str(b!), to, (dst) => renameSync(src, dst)),
      );
    } catch (e) {
      if (e instanceof AilRuntimeError) throw e;
      throw ioError('renameFile', 'rename', `${str(a!)} ${str(b!)}`, e);
    }
    return UNIT_V;
  },
  'std/fs.readFileResult': ([p], rt) => result(() => readText(rt, 'readFileResult', str(p!))),
  'std/fs.writeFileResult': ([p, c], rt) =>
    result(() => (writeText(rt, 'writeFileResult', str(p!), str(c!), false), UNIT_V)),
  'std/fs.appendFileResult': ([p, c], rt) =>
    result(() => (writeText(rt, 'appendFileResult', str(p!), str(c!), true), UNIT_V)),
  'std/fs.removeFileResult': ([p], rt) =>
    result(() =>
      withName(rt, 'removeFileResult', str(p!), 'remove', (at) => (removePath(at), UNIT_V)),
    ),
  'std/fs.mkdirAllResult': ([p], rt) => result(() => mkdirAllIn(rt, 'mkdirAllResult', str(p!))),
};
