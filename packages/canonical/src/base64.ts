/** Base64 text that is not canonical standard base64 (RFC 4648 §4, with padding). */
export class InvalidBase64Error extends Error {
  constructor(readonly field: string) {
    super(`${field}: must be standard base64 with padding`);
    this.name = 'InvalidBase64Error';
  }
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Decodes standard padded base64 strictly (Node's decoder silently skips bad characters).
 * @throws InvalidBase64Error naming the field
 */
export function decodeBase64(text: string, field = 'payload'): Buffer {
  if (!BASE64.test(text)) throw new InvalidBase64Error(field);
  return Buffer.from(text, 'base64');
}

/** Standard padded base64 of bytes. */
export function encodeBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}
