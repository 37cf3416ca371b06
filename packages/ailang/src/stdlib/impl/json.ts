import {
  AilRuntimeError,
  NONE,
  err,
  listFrom,
  listItems,
  ok,
  showFloat,
  some,
  type BuiltinImpl,
  type CtorValue,
  type ListValue,
  type Value,
} from '../../runtime/values.js';
import { flt, str } from './common.js';
import { floatToInt } from './numbers.js';

/**
 * std/json (stdlib/catalogue/services.ts) over the Json ADT `JNull | JBool(bool) |
 * JNumber(float) | JString(string) | JArray([Json]) | JObject([{key: string, value: Json}])`.
 * `encode` writes compact JSON the way the real `_json_encode` does: integral numbers within
 * int64 as integers, other numbers in shortest positional form, NaN and ±Inf as `null`, only `"`,
 * `\`, the short escapes and other control characters escaped. `decode` reads the first JSON value
 * of the text (what follows it is not read, as the real streaming decoder does), keeps object
 * pairs in source order with duplicates, and makes every number a float (integers through int64,
 * clamped at its bounds; other numbers through float64, ±Inf past its range), with no nesting
 * limit (packages/ailang/README.md "std/json numbers and nesting").
 */

const ctor = (name: string, ...args: Value[]): CtorValue => ({ k: 'ctor', name, args });
const JNULL = ctor('JNull');
const kvRecord = (key: string, value: Value): Value => ({
  k: 'record',
  fields: new Map<string, Value>([
    ['key', key],
    ['value', value],
  ]),
});

const INT64_BOUND = 2 ** 63;

function encodeNumber(f: number): string {
  if (!Number.isFinite(f)) return 'null';
  if (Number.isInteger(f) && f >= -INT64_BOUND && f < INT64_BOUND) return BigInt(f).toString();
  const s = showFloat(f);
  return s.endsWith('.0') ? s.slice(0, -2) : s;
}

const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

function encodeString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const esc = SHORT_ESCAPES[ch];
    if (esc !== undefined) out += esc;
    else if (ch.codePointAt(0)! < 0x20)
      out += `\\u${ch.codePointAt(0)!.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/**
 * Compact JSON text of a Json value, built with an explicit work stack (no recursion), so any
 * value decode can build can be encoded again.
 * @throws AilRuntimeError for a value that is not a Json constructor
 * @internal exported for json-limits.spec.ts
 */
export function encodeJson(v: Value): string {
  const out: string[] = [];
  // Pieces of text to emit, or values to encode, in reverse order.
  type Work = { text: string } | { value: Value } | { member: Value };
  const work: Work[] = [{ value: v }];
  const push = (items: Value[], item: (x: Value) => Work, close: string): void => {
    work.push({ text: close });
    for (let i = items.length - 1; i >= 0; i--) {
      work.push(item(items[i]!));
      if (i > 0) work.push({ text: ',' });
    }
  };
  while (work.length > 0) {
    const w = work.pop()!;
    if ('text' in w) {
      out.push(w.text);
      continue;
    }
    if ('member' in w) {
      // an object member {key, value}
      const f = (w.member as { fields: Map<string, Value> }).fields;
      out.push(`${encodeString(str(f.get('key')!))}:`);
      work.push({ value: f.get('value')! });
      continue;
    }
    const c = w.value as CtorValue;
    switch (c.name) {
      case 'JNull':
        out.push('null');
        break;
      case 'JBool':
        out.push(c.args[0] === true ? 'true' : 'false');
        break;
      case 'JNumber':
        out.push(encodeNumber(flt(c.args[0]!)));
        break;
      case 'JString':
        out.push(encodeString(str(c.args[0]!)));
        break;
      case 'JArray':
        out.push('[');
        push(listItems(c.args[0] as ListValue), (x) => ({ value: x }), ']');
        break;
      case 'JObject':
        out.push('{');
        push(listItems(c.args[0] as ListValue), (kv) => ({ member: kv }), '}');
        break;
      default:
        throw new AilRuntimeError(`encode: ${c.name} is not a Json constructor`);
    }
  }
  return out.join('');
}

class JsonSyntax extends Error {}

/** An open container while decoding: its items so far and, in an object, the pending key. */
interface Frame {
  kind: 'array' | 'object';
  items: Value[];
  key: string;
}

/** A reader of one JSON value (RFC 8259 grammar) from the start of a text. */
class JsonReader {
  private i = 0;
  constructor(private readonly s: string) {}

  private ws(): void {
    while (this.i < this.s.length && ' \t\n\r'.includes(this.s[this.i]!)) this.i++;
  }

  private fail(context: string): never {
    if (this.i >= this.s.length) throw new JsonSyntax('invalid json: unexpected EOF');
    throw new JsonSyntax(`invalid json: invalid character '${this.s[this.i]}' ${context}`);
  }

  top(): Value {
    this.ws();
    if (this.i >= this.s.length) throw new JsonSyntax('no JSON value found');
    return this.value();
  }

  /**
   * One value, containers included, with an explicit stack of open containers rather than
   * recursion: like the real decoder's token stream (a Go `json.Decoder.Token` loop keeping its
   * own frames), nesting is bounded by memory, not by the thread's call stack.
   */
  private value(): Value {
    const open: Frame[] = [];
    for (;;) {
      let v: Value;
      this.ws();
      const ch = this.s[this.i];
      if (ch === '{' || ch === '[') {
        this.i++;
        this.ws();
        const close = ch === '{' ? '}' : ']';
        if (this.s[this.i] === close) {
          this.i++;
          v = ctor(ch === '{' ? 'JObject' : 'JArray', listFrom([]));
        } else if (ch === '{') {
          open.push({ kind: 'object', items: [], key: this.key() });
          continue;
        } else {
          open.push({ kind: 'array', items: [], key: '' });
          continue;
        }
      } else {
        v = this.scalar();
      }
      // A finished value joins its container; a closing bracket finishes that one in turn.
      for (;;) {
        const top = open[open.length - 1];
        if (top === undefined) return v;
        top.items.push(top.kind === 'object' ? kvRecord(top.key, v) : v);
        this.ws();
        if (this.s[this.i] === ',') {
          this.i++;
          if (top.kind === 'object') top.key = this.key();
          break;
        }
        const close = top.kind === 'object' ? '}' : ']';
        if (this.s[this.i] !== close)
          this.fail(top.kind === 'object' ? 'after object key:value pair' : 'after array element');
        this.i++;
        open.pop();
        v = ctor(top.kind === 'object' ? 'JObject' : 'JArray', listFrom(top.items));
      }
    }
  }

  /** `"key" :` of an object member. */
  private key(): string {
    this.ws();
    if (this.s[this.i] !== '"') this.fail('looking for beginning of object key string');
    const key = this.string();
    // The real streaming decoder takes "" for "no key yet" and drops or mis-keys such pairs;
    // rather than guess which, the embedded decoder refuses them.
    if (key === '')
      throw new AilRuntimeError(
        'decode: an empty object key ("") is not supported by the embedded toolchain',
      );
    this.ws();
    if (this.s[this.i] !== ':') this.fail('after object key');
    this.i++;
    return key;
  }

  private scalar(): Value {
    const ch = this.s[this.i];
    if (ch === '"') return ctor('JString', this.string());
    if (ch === '-' || (ch !== undefined && ch >= '0' && ch <= '9')) return this.number();
    for (const [word, v] of [
      ['true', ctor('JBool', true)],
      ['false', ctor('JBool', false)],
      ['null', JNULL],
    ] as const) {
      if (this.s.startsWith(word, this.i)) {
        this.i += word.length;
        return v;
      }
    }
    return this.fail('looking for beginning of value');
  }

  /**
   * The real `makeJNumber`: a literal with `.`, `e` or `E` is `json.Number.Float64`
   * (strconv.ParseFloat: correctly rounded, ±Inf past the float range, its range error
   * ignored); any other is `json.Number.Int64` (strconv.ParseInt, clamped to the int64 bounds,
   * its range error ignored) made a float.
   */
  private number(): Value {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.s.slice(this.i));
    if (m === null) {
      this.i++;
      return this.fail('in numeric literal');
    }
    this.i += m[0].length;
    if (m[2] !== undefined || m[3] !== undefined) return ctor('JNumber', Number(m[0]));
    let n = BigInt(m[0]);
    if (n >= 2n ** 63n) n = 2n ** 63n - 1n;
    if (n < -(2n ** 63n)) n = -(2n ** 63n);
    return ctor('JNumber', Number(n));
  }

  private string(): string {
    this.i++;
    let out = '';
    while (true) {
      if (this.i >= this.s.length) this.fail('in string literal');
      const ch = this.s[this.i]!;
      if (ch === '"') {
        this.i++;
        return out.replace(
          /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
          '\uFFFD',
        );
      }
      if (ch.charCodeAt(0) < 0x20) this.fail('in string literal');
      if (ch !== '\\') {
        out += ch;
        this.i++;
        continue;
      }
      const e = this.s[this.i + 1];
      const simple: Record<string, string> = {
        '"': '"',
        '\\': '\\',
        '/': '/',
        b: '\b',
        f: '\f',
        n: '\n',
        r: '\r',
        t: '\t',
      };
      if (e !== undefined && e in simple) {
        out += simple[e];
        this.i += 2;
      } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(this.s.slice(this.i + 2, this.i + 6))) {
        out += String.fromCharCode(Number.parseInt(this.s.slice(this.i + 2, this.i + 6), 16));
        this.i += 6;
      } else {
        this.i++;
        this.fail('in string escape code');
      }
    }
  }
}

type Json = CtorValue;
const argOf = (v: Value): Value => (v as Json).args[0]!;
const pairsOf = (j: Value): Value[] =>
  (j as Json).name === 'JObject' ? listItems(argOf(j) as ListValue) : [];
const field = (kv: Value, name: string): Value =>
  (kv as { fields: Map<string, Value> }).fields.get(name)!;

function get(obj: Value, key: string): Value {
  const hit = pairsOf(obj).find((kv) => field(kv, 'key') === key);
  return hit === undefined ? NONE : some(field(hit, 'value'));
}

const as =
  (ctorName: string) =>
  (j: Value): Value =>
    (j as Json).name === ctorName ? some(argOf(j)) : NONE;
const then = (o: Value, f: (v: Value) => Value): Value =>
  (o as Json).name === 'Some' ? f(argOf(o)) : NONE;

export const JSON_IMPLS: Record<string, BuiltinImpl> = {
  _json_encode: ([v]) => encodeJson(v!),
  _json_decode: ([s]) => {
    try {
      return ok(new JsonReader(str(s!)).top());
    } catch (e) {
      if (e instanceof JsonSyntax) return err(e.message);
      throw e;
    }
  },
  'std/json.jn': () => JNULL,
  'std/json.jb': ([b]) => ctor('JBool', b!),
  'std/json.jnum': ([x]) => ctor('JNumber', flt(x!)),
  'std/json.js': ([s]) => ctor('JString', s!),
  'std/json.ja': ([xs]) => ctor('JArray', xs!),
  'std/json.jo': ([kvs]) => ctor('JObject', kvs!),
  'std/json.kv': ([k, v]) => kvRecord(str(k!), v!),
  'std/json.get': ([o, k]) => get(o!, str(k!)),
  'std/json.has': ([o, k]) => (get(o!, str(k!)) as Json).name === 'Some',
  'std/json.getOr': ([o, k, d]) => {
    const v = get(o!, str(k!));
    return (v as Json).name === 'Some' ? argOf(v) : d!;
  },
  'std/json.asString': ([j]) => as('JString')(j!),
  'std/json.asNumber': ([j]) => as('JNumber')(j!),
  'std/json.asBool': ([j]) => as('JBool')(j!),
  'std/json.asArray': ([j]) => as('JArray')(j!),
  'std/json.asObject': ([j]) => as('JObject')(j!),
  'std/json.keys': ([o]) => listFrom(pairsOf(o!).map((kv) => field(kv, 'key'))),
  'std/json.values': ([o]) => listFrom(pairsOf(o!).map((kv) => field(kv, 'value'))),
  'std/json.getString': ([o, k]) => then(get(o!, str(k!)), as('JString')),
  'std/json.getNumber': ([o, k]) => then(get(o!, str(k!)), as('JNumber')),
  'std/json.getInt': ([o, k]) =>
    then(get(o!, str(k!)), (j) => then(as('JNumber')(j), (f) => some(floatToInt(flt(f))))),
  'std/json.getBool': ([o, k]) => then(get(o!, str(k!)), as('JBool')),
  'std/json.getArray': ([o, k]) => then(get(o!, str(k!)), as('JArray')),
  'std/json.getObject': ([o, k]) => get(o!, str(k!)),
};
