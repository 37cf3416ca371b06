import { isOkToolAnswer } from './http-load.js';

describe('isOkToolAnswer (a tools/call answer whose output is ok)', () => {
  const ok =
    '{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{"ok":true,"content":"x"}}}';
  it.each([
    [ok, true],
    [`event: message\ndata: ${ok}\n\n`, true],
    ['{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"ok":false,"refused":"no"}}}', false],
    ['{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"host callback failed"}}', false],
    ['event: message\n\n', false],
    ['not json', false],
  ])('%j is %s', (body, expected) => {
    expect(isOkToolAnswer(body)).toBe(expected);
  });
});
