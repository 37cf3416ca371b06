/** Base64 text that is not canonical standard base64 (RFC 4648 §4, with padding). */
export class InvalidBase64Error extends Error {
  constructor(readonly field: string) {
    super(`${field}: must be standard base64 with padding`);
    this.name = 'InvalidBase64Error';
  }
}

/** The last four characters of standard padded base64: a full quantum, or one padded by = or ==. */
const LAST_QUANTUM = /^(?:[A-Za-z0-9+/]{4}|[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)$/;

/**
 * Decodes standard padded base64 strictly (RFC 4648 §4): only the standard alphabet, length a
 * multiple of 4, `=` only as the last one or two characters. Node's decoder silently skips
 * characters outside the alphabet, takes the URL-safe one and stops at a `=`, so the bytes are
 * re-encoded and compared: every quantum but the last must come back as written (anything Node
 * skipped or read otherwise changes the text or its length), and the last is matched alone (its
 * unused bits, which RFC 4648 §3.5 lets an encoder leave non-zero, are not compared). The whole
 * text is thus checked by the C++ codec and one string comparison — a regular expression over a
 * payload of hundreds of KiB costs hundreds of ms on its first runs (V8 interprets a regular
 * expression before it compiles it).
 * @throws InvalidBase64Error naming the field
 */
export function decodeBase64(text: string, field = 'payload'): Buffer {
  const bytes = Buffer.from(text, 'base64');
  if (text.length === 0) return bytes;
  const again = bytes.toString('base64');
  if (
    text.length % 4 !== 0 ||
    again.length !== text.length ||
    !LAST_QUANTUM.test(text.slice(-4)) ||
    again.slice(0, -4) !== text.slice(0, -4)
  )
    throw new InvalidBase64Error(field);
  return bytes;
}

/** Standard padded base64 of bytes. */
export function encodeBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}
