import { httpError } from './http.js';

describe('httpError (world-spec §7.3: `<path> returned HTTP <status> <Class>: <message>`)', () => {
  it.each([
    [
      '§5.1 the REST envelope',
      404,
      '{"error":{"class":"NotFound","message":"log entry not found"}}',
      '/v1/log/9 returned HTTP 404 NotFound: log entry not found',
    ],
    [
      '§5.1 a conflict names both heads',
      409,
      '{"error":{"class":"HeadConflict","message":"stale","observedHead":"sha256:a","selectedHead":"sha256:b"}}',
      '/v1/log/9 returned HTTP 409 HeadConflict: stale (observedHead=sha256:a selectedHead=sha256:b)',
    ],
    [
      '§6.1 a plain-text 401',
      401,
      'unknown session credential\n',
      '/v1/log/9 returned HTTP 401 Unauthorized: unknown session credential',
    ],
    ['an empty body', 502, '', '/v1/log/9 returned HTTP 502 Error: (no body)'],
  ])('%s', (_row, status, text, message) => {
    expect(httpError('/v1/log/9', { status, contentType: '', text }).message).toBe(message);
  });
});
