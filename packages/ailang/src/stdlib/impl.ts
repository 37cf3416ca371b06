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
import { INT64_MAX } from '../lang/lexer.js';
import { NOT_REGULAR, readRegularText } from '../runtime/regular-file.js';
import { IoFailure, type Sandbox } from '../runtime/sandbox.js';
import {
  AilRuntimeError,
  ExitRequest,
  NIL,
  NONE,
  UNIT_V,
  compareStrings,
  err,
  isList,
  listFrom,
  listItems,
  ok,
  show,
  showFloat,
  some,
  valuesEqual,
  wrap,
  type BuiltinImpl,
  type ListValue,
  type RuntimeApi,
  type Value,
} from '../runtime/values.js';
import { BUILTINS } from './registry.js';

/**
 * Implementations of every builtin of the registry (stdlib/registry.ts), keyed by registry
 * name. Effectful builtins first charge their effect (capability, then budget) through the
 * host; file builtins resolve paths through the sandbox.
 */

// ---------------------------------------------------------------- argument coercion

const int = (v: Value): bigint => {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  throw new AilRuntimeError(`expected an int, got ${show(v)}`);
};
// An int literal whose type stayed polymorphic arrives as bigint where a float is expected.
const flt = (v: Value): number => (typeof v === 'bigint' ? Number(v) : (v as number));
const str = (v: Value): string => v as string;
const list = (v: Value): ListValue => {
  if (!isList(v)) throw new AilRuntimeError(`expected a list, got ${show(v)}`);
  return v;
};
const cps = (s: string): string[] => [...s];

function truthy(rt: RuntimeApi, f: Value, ...args: Value[]): boolean {
  return rt.apply(f, args) === true;
}

// ---------------------------------------------------------------- io

function io(rt: RuntimeApi): void {
  rt.host.charge('IO');
}

const IO_IMPLS: Record<string, BuiltinImpl> = {
  _io_print: ([s], rt) => (io(rt), rt.host.stdout(str(s!)), UNIT_V),
  _io_println: ([s], rt) => (io(rt), rt.host.stdout(`${str(s!)}\n`), UNIT_V),
  _io_printErr: ([s], rt) => (io(rt), rt.host.stderr(str(s!)), UNIT_V),
  _io_eprintln: ([s], rt) => (io(rt), rt.host.stderr(`${str(s!)}\n`), UNIT_V),
  _io_readLine: (_a, rt) => (io(rt), rt.host.readLine() ?? ''),
  _io_readLineOpt: (_a, rt) => {
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

// ---------------------------------------------------------------- fs

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

const FS_IMPLS: Record<string, BuiltinImpl> = {
  _fs_readFile: ([p], rt) => readText(rt, 'readFile', str(p!)),
  _fs_writeFile: ([p, c], rt) => (writeText(rt, 'writeFile', str(p!), str(c!), false), UNIT_V),
  _fs_appendFile: ([p, c], rt) => (writeText(rt, 'appendFile', str(p!), str(c!), true), UNIT_V),
  _fs_fileExists: ([p], rt) =>
    withPath(rt, 'fileExists', str(p!), 'read', 'stat', (real) => existsSync(real)),
  _fs_listDir: ([p], rt) =>
    withPath(rt, 'listDir', str(p!), 'read', 'open', (real) =>
      listFrom(readdirSync(real).sort(compareStrings)),
    ),
  _fs_mkdir: ([p], rt) =>
    withPath(rt, 'mkdir', str(p!), 'write', 'mkdir', (real) => (mkdirSync(real), UNIT_V)),
  _fs_mkdirAll: ([p], rt) =>
    withPath(
      rt,
      'mkdirAll',
      str(p!),
      'write',
      'mkdir',
      (real) => (mkdirSync(real, { recursive: true }), UNIT_V),
    ),
  _fs_isDir: ([p], rt) =>
    withPath(
      rt,
      'isDir',
      str(p!),
      'read',
      'stat',
      (real) => existsSync(real) && statSync(real).isDirectory(),
    ),
  _fs_isFile: ([p], rt) =>
    withPath(
      rt,
      'isFile',
      str(p!),
      'read',
      'stat',
      (real) => existsSync(real) && statSync(real).isFile(),
    ),
  _fs_removeFile: ([p], rt) =>
    withPath(rt, 'removeFile', str(p!), 'write', 'remove', (real) => (removePath(real), UNIT_V)),
  _fs_renameFile: ([a, b], rt) => {
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
  _fs_readFileResult: ([p], rt) => result(() => readText(rt, 'readFileResult', str(p!))),
  _fs_writeFileResult: ([p, c], rt) =>
    result(() => (writeText(rt, 'writeFileResult', str(p!), str(c!), false), UNIT_V)),
  _fs_appendFileResult: ([p, c], rt) =>
    result(() => (writeText(rt, 'appendFileResult', str(p!), str(c!), true), UNIT_V)),
  _fs_removeFileResult: ([p], rt) =>
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
  _fs_mkdirAllResult: ([p], rt) =>
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

// ---------------------------------------------------------------- string

function substring(s: string, start: bigint, end: bigint): string {
  const chars = cps(s);
  const n = BigInt(chars.length);
  const lo = start < 0n ? 0n : start > n ? n : start;
  const hi = end > n ? n : end < lo ? lo : end;
  return chars.slice(Number(lo), Number(hi)).join('');
}

function parseInt64(s: string): Value {
  if (!/^[+-]?\d+$/.test(s)) return NONE;
  const n = BigInt(s);
  if (n > INT64_MAX || n < -INT64_MAX - 1n) return NONE;
  return some(n);
}

function parseFloat64(s: string): Value {
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return NONE;
  return some(Number(s));
}

const STRING_IMPLS: Record<string, BuiltinImpl> = {
  _str_length: ([s]) => BigInt(cps(str(s!)).length),
  _str_substring: ([s, a, b]) => substring(str(s!), int(a!), int(b!)),
  _str_toUpper: ([s]) => str(s!).toUpperCase(),
  _str_toLower: ([s]) => str(s!).toLowerCase(),
  _str_trim: ([s]) => str(s!).trim(),
  _str_compare: ([a, b]) => BigInt(compareStrings(str(a!), str(b!))),
  _str_find: ([h, n]) => {
    const i = str(h!).indexOf(str(n!));
    return i < 0 ? -1n : BigInt(cps(str(h!).slice(0, i)).length);
  },
  _str_contains: ([s, sub]) => str(s!).includes(str(sub!)),
  _str_startsWith: ([s, p]) => str(s!).startsWith(str(p!)),
  _str_endsWith: ([s, p]) => str(s!).endsWith(str(p!)),
  _str_split: ([s, sep]) => listFrom(str(sep!) === '' ? cps(str(s!)) : str(s!).split(str(sep!))),
  _str_chars: ([s]) => listFrom(cps(str(s!))),
  _str_words: ([s]) =>
    listFrom(
      str(s!)
        .split(/\s+/)
        .filter((w) => w !== ''),
    ),
  _str_lines: ([s]) => {
    const text = str(s!);
    if (text === '') return NIL;
    const parts = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
    if (text.endsWith('\n')) parts.pop();
    return listFrom(parts);
  },
  _str_join: ([d, xs]) => listItems(list(xs!)).map(str).join(str(d!)),
  _str_repeat: ([s, n]) => (int(n!) <= 0n ? '' : str(s!).repeat(Number(int(n!)))),
  _str_replace: ([s, a, b]) => (str(a!) === '' ? str(s!) : str(s!).split(str(a!)).join(str(b!))),
  _str_stringToInt: ([s]) => parseInt64(str(s!)),
  _str_stringToFloat: ([s]) => parseFloat64(str(s!)),
  _str_intToStr: ([n]) => int(n!).toString(),
  _str_floatToStr: ([x]) => showFloat(flt(x!)),
};

// ---------------------------------------------------------------- list

function nth(xs: ListValue, i: bigint): Value | undefined {
  if (i < 0n) return undefined;
  let cur = xs;
  for (let k = 0n; cur.k === 'cons'; k++) {
    if (k === i) return cur.head;
    cur = cur.tail;
  }
  return undefined;
}

function mapList(rt: RuntimeApi, f: Value, xs: Value): ListValue {
  return listFrom(listItems(list(xs)).map((x) => rt.apply(f, [x])));
}

function filterList(rt: RuntimeApi, p: Value, xs: Value): ListValue {
  return listFrom(listItems(list(xs)).filter((x) => truthy(rt, p, x)));
}

function foldl(rt: RuntimeApi, f: Value, acc: Value, xs: Value): Value {
  let a = acc;
  for (const x of listItems(list(xs))) a = rt.apply(f, [a, x]);
  return a;
}

function flatMap(rt: RuntimeApi, f: Value, xs: Value): ListValue {
  const out: Value[] = [];
  for (const x of listItems(list(xs))) out.push(...listItems(list(rt.apply(f, [x]))));
  return listFrom(out);
}

const LIST_IMPLS: Record<string, BuiltinImpl> = {
  _list_length: ([xs]) => BigInt(listItems(list(xs!)).length),
  _list_head: ([xs]) => (list(xs!).k === 'cons' ? some((xs as { head: Value }).head) : NONE),
  _list_tail: ([xs]) => {
    const l = list(xs!);
    return l.k === 'cons' ? l.tail : NIL;
  },
  _list_last: ([xs]) => {
    const items = listItems(list(xs!));
    return items.length === 0 ? NONE : some(items[items.length - 1]!);
  },
  _list_nth: ([xs, i]) => {
    const v = nth(list(xs!), int(i!));
    return v === undefined ? NONE : some(v);
  },
  _list_reverse: ([xs]) => listFrom(listItems(list(xs!)).reverse()),
  _list_concat: ([xs, ys]) => listFrom([...listItems(list(xs!)), ...listItems(list(ys!))]),
  _list_take: ([n, xs]) => {
    const k = int(n!);
    const items = listItems(list(xs!));
    return listFrom(
      k <= 0n ? [] : items.slice(0, k > BigInt(items.length) ? items.length : Number(k)),
    );
  },
  _list_drop: ([n, xs]) => {
    let k = int(n!);
    let cur = list(xs!);
    while (k > 0n && cur.k === 'cons') {
      cur = cur.tail;
      k--;
    }
    return cur;
  },
  _list_zip: ([xs, ys]) => {
    const a = listItems(list(xs!));
    const b = listItems(list(ys!));
    const n = Math.min(a.length, b.length);
    return listFrom(a.slice(0, n).map((x, i) => ({ k: 'tuple', items: [x, b[i]!] })));
  },
  _list_contains: ([xs, x]) => listItems(list(xs!)).some((y) => valuesEqual(y, x!)),
  _list_map: ([f, xs], rt) => mapList(rt, f!, xs!),
  _list_filter: ([p, xs], rt) => filterList(rt, p!, xs!),
  _list_foldl: ([f, acc, xs], rt) => foldl(rt, f!, acc!, xs!),
  _list_foldr: ([f, acc, xs], rt) => {
    let a = acc!;
    const items = listItems(list(xs!));
    for (let i = items.length - 1; i >= 0; i--) a = rt.apply(f!, [items[i]!, a]);
    return a;
  },
  _list_sortBy: ([cmp, xs], rt) => {
    const items = listItems(list(xs!));
    // Array.prototype.sort is stable (ECMAScript 2019), like a merge sort.
    return listFrom(
      items.sort((a, b) => {
        const c = int(rt.apply(cmp!, [a, b]));
        return c < 0n ? -1 : c > 0n ? 1 : 0;
      }),
    );
  },
  _list_any: ([p, xs], rt) => listItems(list(xs!)).some((x) => truthy(rt, p!, x)),
  _list_all: ([p, xs], rt) => listItems(list(xs!)).every((x) => truthy(rt, p!, x)),
  _list_findIndex: ([p, xs], rt) => {
    const i = listItems(list(xs!)).findIndex((x) => truthy(rt, p!, x));
    return i < 0 ? NONE : some(BigInt(i));
  },
  _list_zipWith: ([f, xs, ys], rt) => {
    const a = listItems(list(xs!));
    const b = listItems(list(ys!));
    const n = Math.min(a.length, b.length);
    return listFrom(a.slice(0, n).map((x, i) => rt.apply(f!, [x, b[i]!])));
  },
  _list_flatMap: ([f, xs], rt) => flatMap(rt, f!, xs!),
  _list_mapE: ([f, xs], rt) => mapList(rt, f!, xs!),
  _list_filterE: ([p, xs], rt) => filterList(rt, p!, xs!),
  _list_foldlE: ([f, acc, xs], rt) => foldl(rt, f!, acc!, xs!),
  _list_flatMapE: ([f, xs], rt) => flatMap(rt, f!, xs!),
  _list_forEachE: ([f, xs], rt) => {
    for (const x of listItems(list(xs!))) rt.apply(f!, [x]);
    return UNIT_V;
  },
};

// ---------------------------------------------------------------- math

function roundHalfAway(x: number): number {
  const r = Math.sign(x) * Math.round(Math.abs(x));
  return r === 0 ? x * 0 : r;
}

function floatToInt(x: number): bigint {
  if (!Number.isFinite(x))
    throw new AilRuntimeError(`floatToInt: ${showFloat(x)} has no int value`);
  return wrap(BigInt(Math.trunc(x)));
}

const MATH_IMPLS: Record<string, BuiltinImpl> = {
  _math_sqrt: ([x]) => Math.sqrt(flt(x!)),
  _math_pow: ([x, y]) => Math.pow(flt(x!), flt(y!)),
  _math_exp: ([x]) => Math.exp(flt(x!)),
  _math_log: ([x]) => Math.log(flt(x!)),
  _math_log10: ([x]) => Math.log10(flt(x!)),
  _math_sin: ([x]) => Math.sin(flt(x!)),
  _math_cos: ([x]) => Math.cos(flt(x!)),
  _math_tan: ([x]) => Math.tan(flt(x!)),
  _math_atan2: ([y, x]) => Math.atan2(flt(y!), flt(x!)),
  _math_floor: ([x]) => Math.floor(flt(x!)),
  _math_ceil: ([x]) => Math.ceil(flt(x!)),
  _math_round: ([x]) => roundHalfAway(flt(x!)),
  _math_floatToInt: ([x]) => floatToInt(flt(x!)),
  _math_intToFloat: ([x]) => Number(int(x!)),
  _math_abs_Int: ([x]) => wrap(int(x!) < 0n ? -int(x!) : int(x!)),
  _math_abs_Float: ([x]) => Math.abs(flt(x!)),
  _math_PI: () => Math.PI,
  _math_E: () => Math.E,
};

// ---------------------------------------------------------------- option / result / env / show

const ctorArg = (v: Value): Value => (v as { args: Value[] }).args[0]!;
const ctorName = (v: Value): string => (v as { name: string }).name;

const ADT_IMPLS: Record<string, BuiltinImpl> = {
  _option_map: ([f, o], rt) => (ctorName(o!) === 'Some' ? some(rt.apply(f!, [ctorArg(o!)])) : NONE),
  _option_flatMap: ([f, o], rt) => (ctorName(o!) === 'Some' ? rt.apply(f!, [ctorArg(o!)]) : NONE),
  _option_getOrElse: ([o, d]) => (ctorName(o!) === 'Some' ? ctorArg(o!) : d!),
  _option_isSome: ([o]) => ctorName(o!) === 'Some',
  _option_isNone: ([o]) => ctorName(o!) === 'None',
  _option_filter: ([p, o], rt) =>
    ctorName(o!) === 'Some' && truthy(rt, p!, ctorArg(o!)) ? o! : NONE,
  _result_map: ([f, r], rt) => (ctorName(r!) === 'Ok' ? ok(rt.apply(f!, [ctorArg(r!)])) : r!),
  _result_mapErr: ([f, r], rt) => (ctorName(r!) === 'Err' ? err(rt.apply(f!, [ctorArg(r!)])) : r!),
  _result_flatMap: ([f, r], rt) => (ctorName(r!) === 'Ok' ? rt.apply(f!, [ctorArg(r!)]) : r!),
  _result_isOk: ([r]) => ctorName(r!) === 'Ok',
  _result_isErr: ([r]) => ctorName(r!) === 'Err',
  _result_unwrap: ([r]) => {
    if (ctorName(r!) === 'Ok') return ctorArg(r!);
    throw new AilRuntimeError(`unwrap: called on ${show(r!)}`);
  },
  _env_getArgs: (_a, rt) => (rt.host.charge('Env'), listFrom([...rt.host.args])),
  _env_getEnv: ([n], rt) => {
    rt.host.charge('Env');
    const v = rt.host.env.get(str(n!));
    return v === undefined ? NONE : some(v);
  },
  _env_getEnvOr: ([n, d], rt) => (rt.host.charge('Env'), rt.host.env.get(str(n!)) ?? str(d!)),
  _env_hasEnv: ([n], rt) => (rt.host.charge('Env'), rt.host.env.has(str(n!))),
  show: ([x]) => show(x!),
};

/** Every implementation by registry name. */
export const IMPLS: ReadonlyMap<string, BuiltinImpl> = new Map(
  Object.entries({
    ...IO_IMPLS,
    ...FS_IMPLS,
    ...STRING_IMPLS,
    ...LIST_IMPLS,
    ...MATH_IMPLS,
    ...ADT_IMPLS,
  }),
);

/** Registry names without an implementation (a test keeps this empty). */
export function unimplemented(): string[] {
  return BUILTINS.filter((b) => !IMPLS.has(b.name)).map((b) => b.name);
}
