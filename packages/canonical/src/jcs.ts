import canonicalize from 'canonicalize';

/**
 * Canonical JSON text of a value, per RFC 8785 (JSON Canonicalization Scheme): sorted keys,
 * no whitespace, ECMAScript number formatting, minimal string escaping.
 * @param value any JSON value (objects, arrays, strings, finite numbers, booleans, null)
 * @returns the canonical text
 * @throws TypeError when the value is not representable as JSON (undefined, a function, NaN…)
 * Source: RFC 8785; DESIGN.md §4 (one encoder for every service).
 */
export function canonicalJson(value: unknown): string {
  let text: string | undefined;
  try {
    text = (canonicalize as unknown as (v: unknown) => string | undefined)(value);
  } catch (err) {
    throw new TypeError(`value is not canonical JSON: ${(err as Error).message}`, { cause: err });
  }
  if (typeof text !== 'string') throw new TypeError('value is not representable as JSON');
  return text;
}

/**
 * Canonical JSON text of an object whose member values are already canonical JSON text: the
 * members sorted by the UTF-16 code units of their names, each name written as canonical JSON
 * (RFC 8785 §3.2.3), no whitespace. It wraps canonical bytes made earlier (an invocation's
 * input) in a larger canonical value without parsing or canonicalizing them a second time.
 * @param members name → the canonical JSON text of its value (canonicalJson's output)
 * @returns what canonicalJson returns for the object of the parsed member values
 * Source: RFC 8785 §3.2.3 (sorting of object properties).
 */
export function canonicalObjectOf(members: Readonly<Record<string, string>>): string {
  // Array.prototype.sort without a comparator orders strings by UTF-16 code units, as §3.2.3 asks.
  const names = Object.keys(members).sort();
  return `{${names.map((name) => `${canonicalJson(name)}:${members[name]}`).join(',')}}`;
}

/**
 * Canonical JSON bytes (UTF-8) of a value; the bytes every content address is taken over.
 * @throws TypeError as canonicalJson
 */
export function canonicalBytes(value: unknown): Buffer {
  return Buffer.from(canonicalJson(value), 'utf8');
}
