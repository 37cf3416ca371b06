import { httpExchangeSync } from './http-sync.js';

describe('httpExchangeSync (std/net: the child re-checks the endpoint it reaches)', () => {
  it('sends nothing when its own URL parser reaches another endpoint than the allowed one', () => {
    expect(
      httpExchangeSync({
        method: 'GET',
        url: 'http://127.0.0.1:9/x',
        endpoint: '127.0.0.1:10',
        headers: [],
        body: '',
        timeoutMs: 5_000,
        maxBytes: 1024,
      }),
    ).toEqual({
      ok: false,
      kind: 'transport',
      message: 'the URL reaches 127.0.0.1:9, not 127.0.0.1:10',
    });
  });
});
