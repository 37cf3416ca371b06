import { McpCancellations, cancelledRequestIds, withoutAnswersTo } from './cancellation.js';
import type { SdkAnswer } from './sdk-fetch-adapter.js';

/** MCP basic/utilities/cancellation: which requests a POST cancels, and the answer without them. */
describe('cancelledRequestIds', () => {
  const cancel = (requestId: unknown) => ({
    jsonrpc: '2.0',
    method: 'notifications/cancelled',
    params: { requestId, reason: 'stop' },
  });
  it.each<[string, unknown, Array<string | number>]>([
    ['one notification, number id', cancel(7), [7]],
    ['one notification, string id', cancel('a'), ['a']],
    [
      'a 2025-03-26 batch',
      [cancel(1), { jsonrpc: '2.0', id: 2, method: 'ping' }, cancel('x')],
      [1, 'x'],
    ],
    ['an id that is neither string nor number', cancel(null), []],
    ['a request (it has an id), not a notification', { ...cancel(3), id: 9 }, []],
    ['another notification', { jsonrpc: '2.0', method: 'notifications/initialized' }, []],
    ['no params', { jsonrpc: '2.0', method: 'notifications/cancelled' }, []],
    ['not an object', 'notifications/cancelled', []],
  ])('%s', (_row, body, ids) => {
    expect(cancelledRequestIds(body)).toEqual(ids);
  });
});

describe('McpCancellations', () => {
  it('cancels the requests of the same session and id only, until they are forgotten', () => {
    const registry = new McpCancellations();
    const fired: string[] = [];
    const forgetA = registry.register('cred-1', 7, () => fired.push('a'));
    registry.register('cred-1', 7, () => fired.push('b'));
    registry.register('cred-1', '7', () => fired.push('string id'));
    registry.register('cred-2', 7, () => fired.push('other session'));
    forgetA();
    expect(registry.cancel('cred-1', 7)).toBe(1);
    expect(fired).toEqual(['b']);
    expect(registry.cancel('cred-1', 8)).toBe(0);
    expect(fired).toEqual(['b']);
  });
});

describe('withoutAnswersTo', () => {
  const sse = (...messages: unknown[]): SdkAnswer => ({
    status: 200,
    headers: { 'content-type': 'text/event-stream', 'content-length': '999' },
    bytes: Buffer.from(
      messages.map((m) => `event: message\ndata: ${JSON.stringify(m)}\n\n`).join(''),
    ),
    thrown: false,
  });
  const result = (id: number) => ({ jsonrpc: '2.0', id, result: {} });
  const text = (a: SdkAnswer) => a.bytes?.toString('utf8');

  it('drops the only response: 200, an SSE stream with no message', () => {
    const answer = withoutAnswersTo(sse(result(7)), new Set([7]));
    expect(answer).toEqual({
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
      bytes: Buffer.alloc(0),
      thrown: false,
    });
  });

  it('keeps the responses to requests that were not cancelled', () => {
    const answer = withoutAnswersTo(sse(result(1), result(2), result(3)), new Set([2]));
    expect(text(answer)).toBe(
      `event: message\ndata: ${JSON.stringify(result(1))}\n\n` +
        `event: message\ndata: ${JSON.stringify(result(3))}\n\n`,
    );
    expect(answer.headers).toEqual({ 'content-type': 'text/event-stream' });
  });

  it('filters a batch array inside one event, and a JSON body', () => {
    expect(text(withoutAnswersTo(sse([result(1), result(2)]), new Set([1])))).toBe(
      `event: message\ndata: ${JSON.stringify([result(2)])}\n\n`,
    );
    const json: SdkAnswer = {
      status: 200,
      headers: { 'content-type': 'application/json' },
      bytes: Buffer.from(JSON.stringify([result(1), result(2)])),
      thrown: false,
    };
    expect(text(withoutAnswersTo(json, new Set([2])))).toBe(JSON.stringify([result(1)]));
    expect(withoutAnswersTo(json, new Set([1, 2]))).toEqual({
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
      bytes: Buffer.alloc(0),
      thrown: false,
    });
  });

  it('returns the answer itself when nothing was cancelled or nothing matches', () => {
    const answer = sse(result(1));
    expect(withoutAnswersTo(answer, new Set())).toBe(answer);
    expect(text(withoutAnswersTo(answer, new Set([5])))).toBe(text(answer));
  });
});
