import { INT64_MAX } from '../../lang/lexer.js';
import {
  NIL,
  NONE,
  compareStrings,
  listFrom,
  listItems,
  showFloat,
  some,
  type BuiltinImpl,
  type Value,
} from '../../runtime/values.js';
import { cps, flt, int, list, str } from './common.js';

/** std/string (stdlib/catalogue/text.ts). */

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

export const STRING_IMPLS: Record<string, BuiltinImpl> = {
  _str_len: ([s]) => BigInt(cps(str(s!)).length),
  _str_slice: ([s, a, b]) => substring(str(s!), int(a!), int(b!)),
  _str_upper: ([s]) => str(s!).toUpperCase(),
  _str_lower: ([s]) => str(s!).toLowerCase(),
  _str_trim: ([s]) => str(s!).trim(),
  _str_compare: ([a, b]) => BigInt(compareStrings(str(a!), str(b!))),
  _str_find: ([h, n]) => {
    const i = str(h!).indexOf(str(n!));
    return i < 0 ? -1n : BigInt(cps(str(h!).slice(0, i)).length);
  },
  'std/string.contains': ([s, sub]) => str(s!).includes(str(sub!)),
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
  'std/string.lines': ([s]) => {
    const text = str(s!);
    if (text === '') return NIL;
    const parts = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
    if (text.endsWith('\n')) parts.pop();
    return listFrom(parts);
  },
  'std/string.join': ([d, xs]) => listItems(list(xs!)).map(str).join(str(d!)),
  _str_join: ([xs, d]) => listItems(list(xs!)).map(str).join(str(d!)),
  _str_eq: ([a, b]) => str(a!) === str(b!),
  _str_splitAny: ([s, ds]) => {
    const delims = new Set(listItems(list(ds!)).map(str));
    const out: string[] = [];
    let cur = '';
    for (const ch of cps(str(s!))) {
      if (delims.has(ch)) {
        out.push(cur);
        cur = '';
      } else cur += ch;
    }
    out.push(cur);
    return listFrom(out);
  },
  concat_String: ([a, b]) => str(a!) + str(b!),
  'std/string.repeat': ([s, n]) => (int(n!) <= 0n ? '' : str(s!).repeat(Number(int(n!)))),
  'std/string.replace': ([s, a, b]) =>
    str(a!) === '' ? str(s!) : str(s!).split(str(a!)).join(str(b!)),
  _stringToInt: ([s]) => parseInt64(str(s!)),
  _stringToFloat: ([s]) => parseFloat64(str(s!)),
  _string_intToStr: ([n]) => int(n!).toString(),
  _string_floatToStr: ([x]) => showFloat(flt(x!)),
};
