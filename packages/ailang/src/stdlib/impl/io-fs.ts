import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
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
    return readRegularText(real, (size) => sb.transfer(op, size));
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
    if (append) appendFileSync(real, content, 'utf8');
    else writeFileSync(real, content, 'utf8');
  } catch (e) {
    throw ioError(op, 'open', p, e);
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

function removePath(real: string): void {
  if (statSync(real).isDirectory()) rmdirSync(real);
  else unlinkSync(real);
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
  _fs_exists: ([p], rt) =>
    withPath(rt, 'fileExists', str(p!), 'read', 'stat', (real) => existsSync(real)),
  'std/fs.listDir': ([p], rt) =>
    withPath(rt, 'listDir', str(p!), 'read', 'open', (real) =>
      listFrom(readdirSync(real).sort(compareStrings)),
    ),
  'std/fs.mkdir': ([p], rt) =>
    withPath(rt, 'mkdir', str(p!), 'write', 'mkdir', (real) => (mkdirSync(real), UNIT_V)),
  'std/fs.mkdirAll': ([p], rt) =>
    withPath(
      rt,
      'mkdirAll',
      str(p!),
      'write',
      'mkdir',
      (real) => (mkdirSync(real, { recursive: true }), UNIT_V),
    ),
  'std/fs.isDir': ([p], rt) =>
    withPath(
      rt,
      'isDir',
      str(p!),
      'read',
      'stat',
      (real) => existsSync(real) && statSync(real).isDirectory(),
    ),
  'std/fs.isFile': ([p], rt) =>
    withPath(
      rt,
      'isFile',
      str(p!),
      'read',
      'stat',
      (real) => existsSync(real) && statSync(real).isFile(),
    ),
  'std/fs.removeFile': ([p], rt) =>
    withPath(rt, 'removeFile', str(p!), 'write', 'remove', (real) => (removePath(real), UNIT_V)),
  'std/fs.renameFile': ([a, b], rt) => {
    const sb = sandbox(rt, 'renameFile');
    const from = sb.resolve('renameFile', str(a!), 'write');
    const to = sb.resolve('renameFile', str(b!), 'write');
    try {
      renameSync(from, to);
    } catch (e) {
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
      withPath(
        rt,
        'removeFileResult',
        str(p!),
        'write',
        'remove',
        (real) => (removePath(real), UNIT_V),
      ),
    ),
  'std/fs.mkdirAllResult': ([p], rt) =>
    result(() =>
      withPath(
        rt,
        'mkdirAllResult',
        str(p!),
        'write',
        'mkdir',
        (real) => (mkdirSync(real, { recursive: true }), UNIT_V),
      ),
    ),
};
