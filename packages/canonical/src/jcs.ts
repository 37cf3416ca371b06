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
 * Canonical JSON bytes (UTF-8) of a value; the bytes every content address is taken over.
 * @throws TypeError as canonicalJson
 */
export function canonicalBytes(value: unknown): Buffer {
  return Buffer.from(canonicalJson(value), 'utf8');
}

/**
 * Parses JSON text strictly: one value, nothing after it.
 * @throws SyntaxError with the parser's message
 */
export function parseJson(text: string): unknown {
  return JSON.parse(text);
}
