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

/**
 * Parses a body that must hold exactly one JSON object (world-spec §5.10: "exactly one JSON
 * object; unknown fields and trailing values refused" — trailing values fail JSON.parse).
 * @throws BadRequestError `body is not valid JSON: …` or `body must be a JSON object`
 */
export function parseJsonObject(bytes: Buffer): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (err) {
    throw new BadRequestError(`body is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new BadRequestError('body must be a JSON object');
  }
  return value as Record<string, unknown>;
}
