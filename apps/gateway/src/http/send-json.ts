import type { ServerResponse } from 'node:http';

/**
 * Answers 200 with `value` as JSON (`Content-Type: application/json; charset=utf-8`, the type
 * Express's `res.json` sends), in one write and without an ETag: Express's default weak ETag
 * is a SHA-1 of the whole body on every answer (~120 KB for a 500-entry log page: 6 % of the
 * route's CPU in the bench profile, half as much as serializing it), and nothing in World
 * revalidates these pages (the reference daemon sends no ETag either, world-spec §5). A HEAD request gets the headers only (Node drops the body).
 * @param value a JSON-serializable value (the §5 response shape, already built)
 */
export function sendJson(res: ServerResponse, value: unknown): void {
  // One UTF-8 encoding gives both the bytes and their length (a string body would be scanned
  // once for Content-Length and encoded again on write).
  const body = Buffer.from(JSON.stringify(value), 'utf8');
  res.writeHead(200, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': body.byteLength,
  });
  res.end(body);
}
