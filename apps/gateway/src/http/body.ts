import type { IncomingMessage } from 'node:http';
import { BadRequestError, PayloadTooLargeError } from '@world/contracts';

/**
 * Reads a request body from the raw stream, never more than `maxBytes` (the gateway runs with
 * Nest's body parser off, whose 100 kB limit answers HTML — ecosystem.md §0.8, §8).
 * A declared Content-Length over the limit is refused before anything is read.
 * @param maxBytes the route's limit in bytes
 * @throws PayloadTooLargeError `request body exceeds <maxBytes> bytes`
 */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const tooLarge = () => new PayloadTooLargeError(`request body exceeds ${maxBytes} bytes`);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    discard(req);
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    received += chunk.byteLength;
    if (received > maxBytes) {
      discard(req);
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, received);
}

/**
 * Stops reading a refused body; the response carries `Connection: close` so the socket ends
 * after it instead of draining an arbitrary amount of input.
 */
function discard(req: IncomingMessage): void {
  req.pause();
  req.unpipe();
}

/** A request body decoded as JSON, or why it is not JSON. */
export type DecodedJson =
  { ok: true; value: unknown } | { ok: false; reason: 'utf8' | 'json'; message: string };

/**
 * Decodes a request body as JSON text, the one decoder of every body the gateway reads (/v1,
 * /mcp, /a2a): the bytes must be UTF-8 (RFC 8259 §8.1) — a malformed sequence is refused,
 * never replaced with U+FFFD, so what runs and is recorded is exactly what was sent — and the
 * text one JSON value (trailing values fail JSON.parse). JSON.parse keeps an own `__proto__`
 * key as data, so strict key checks downstream see it.
 * @param bytes the body (already bounded by its route's limit)
 * @returns the value, or `reason: 'utf8'` / `'json'` with the decoder's message
 */
export function decodeJsonBody(bytes: Uint8Array): DecodedJson {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (err) {
    return { ok: false, reason: 'utf8', message: (err as Error).message };
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    return { ok: false, reason: 'json', message: (err as Error).message };
  }
}

/**
 * Parses a body that must hold exactly one JSON object (world-spec §5.10: "exactly one JSON
 * object; unknown fields and trailing values refused" — trailing values fail JSON.parse).
 * @throws BadRequestError `body is not valid UTF-8`, `body is not valid JSON: …` or
 *   `body must be a JSON object`
 */
export function parseJsonObject(bytes: Buffer): Record<string, unknown> {
  const decoded = decodeJsonBody(bytes);
  if (!decoded.ok) {
    throw new BadRequestError(
      decoded.reason === 'utf8'
        ? 'body is not valid UTF-8'
        : `body is not valid JSON: ${decoded.message}`,
    );
  }
  const value = decoded.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new BadRequestError('body must be a JSON object');
  }
  return value as Record<string, unknown>;
}
