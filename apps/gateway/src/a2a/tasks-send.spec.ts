import { decodeTasksSend } from './tasks-send.js';

const encode = (value: unknown) =>
  new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value));

const PARAMS = {
  id: 'read-1',
  metadata: { skill_id: 'ailang-read' },
  message: { role: 'user', parts: [{ type: 'data', data: { path: 'hello.ail' } }] },
};
const request = (params: unknown, extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tasks/send',
  params,
  ...extra,
});

describe('decodeTasksSend: the envelope half of the world-spec §6.5 processing order', () => {
  const refusals: Array<[string, unknown, unknown, number, string]> = [
    [
      '§6.5 undecodable body: id null',
      '{"jsonrpc":"2.0","id":1,',
      null,
      -32600,
      'invalid JSON-RPC request',
    ],
    [
      '§6.5 body not UTF-8: id null',
      new Uint8Array([0x7b, 0xff, 0x7d]),
      null,
      -32600,
      'invalid JSON-RPC request',
    ],
    [
      '§6.5 a batch is not one request: id null',
      [request(PARAMS)],
      null,
      -32600,
      'invalid JSON-RPC request',
    ],
    ['§6.5 a JSON string: id null', '"tasks/send"', null, -32600, 'invalid JSON-RPC request'],
    [
      '§11.20 jsonrpc "1.0": id echoed',
      request(PARAMS, { jsonrpc: '1.0', id: 7 }),
      7,
      -32600,
      'invalid JSON-RPC request',
    ],
    [
      '§6.5 jsonrpc absent',
      { id: 'x', method: 'tasks/send', params: PARAMS },
      'x',
      -32600,
      'invalid JSON-RPC request',
    ],
    ['§11.20 tasks/get', request(PARAMS, { method: 'tasks/get' }), 1, -32601, 'method not found'],
    [
      '§6.5 message/send is not the reference method',
      request(PARAMS, { method: 'message/send' }),
      1,
      -32601,
      'method not found',
    ],
    [
      '§6.5 id absent echoes null',
      { jsonrpc: '2.0', method: 'tasks/cancel' },
      null,
      -32601,
      'method not found',
    ],
    [
      '§6.5 id echoed verbatim, even an object',
      request(PARAMS, { id: { a: 1 }, method: 'x' }),
      { a: 1 },
      -32601,
      'method not found',
    ],
    ['§6.5 params absent', request(undefined), 1, -32602, 'invalid params'],
    ['§6.5 params an array', request([PARAMS]), 1, -32602, 'invalid params'],
    ['§6.5 task id absent', request({ ...PARAMS, id: undefined }), 1, -32602, 'invalid params'],
    ['§6.5 task id empty', request({ ...PARAMS, id: '' }), 1, -32602, 'invalid params'],
    [
      '§6.5 task id with a space',
      request({ ...PARAMS, id: 'read 1' }),
      1,
      -32602,
      'invalid params',
    ],
    [
      '§6.5 task id of 129 characters',
      request({ ...PARAMS, id: 'a'.repeat(129) }),
      1,
      -32602,
      'invalid params',
    ],
    ['§6.5 task id a number', request({ ...PARAMS, id: 7 }), 1, -32602, 'invalid params'],
    [
      '§6.5 metadata absent',
      request({ ...PARAMS, metadata: undefined }),
      1,
      -32602,
      'invalid params',
    ],
    [
      '§6.5 skill_id not a string',
      request({ ...PARAMS, metadata: { skill_id: 3 } }),
      1,
      -32602,
      'invalid params',
    ],
  ];
  it.each(refusals)('%s', (_row, body, id, code, message) => {
    const bytes = body instanceof Uint8Array ? body : encode(body);
    expect(decodeTasksSend(bytes)).toEqual({ kind: 'refusal', id, code, message });
  });

  it('decodes a §6.5 request: task id, skill, the one data part, no pin', () => {
    expect(decodeTasksSend(encode(request(PARAMS)))).toEqual({
      kind: 'call',
      id: 1,
      call: {
        taskId: 'read-1',
        skillId: 'ailang-read',
        args: { path: 'hello.ail' },
        pin: undefined,
      },
    });
  });

  it('accepts a task id of 128 characters of [A-Za-z0-9._-] (§6.5)', () => {
    const taskId = `${'A-z_.9'.repeat(21)}ab`;
    const decoded = decodeTasksSend(encode(request({ ...PARAMS, id: taskId })));
    expect(decoded.kind === 'call' && decoded.call.taskId).toBe(taskId);
  });

  it('carries metadata.transition_fn as sent, for the pin check after the skill check', () => {
    const decoded = decodeTasksSend(
      encode(request({ ...PARAMS, metadata: { skill_id: 'ailang-read', transition_fn: 42 } })),
    );
    expect(decoded.kind === 'call' && decoded.call.pin).toBe(42);
  });

  const parts: Array<[string, unknown, Record<string, unknown> | null]> = [
    [
      '§11.20 two parts',
      {
        parts: [
          { type: 'data', data: {} },
          { type: 'data', data: {} },
        ],
      },
      null,
    ],
    ['no parts', { parts: [] }, null],
    ['a text part', { parts: [{ type: 'text', text: 'hello' }] }, null],
    ['data that is an array', { parts: [{ type: 'data', data: ['x'] }] }, null],
    ['data that is null', { parts: [{ type: 'data', data: null }] }, null],
    ['no message', undefined, null],
    ['parts not an array', { parts: { type: 'data', data: {} } }, null],
    ['an empty arguments object', { parts: [{ type: 'data', data: {} }] }, {}],
  ];
  it.each(parts)('judges the parts later (§6.5 order): %s', (_row, message, args) => {
    const decoded = decodeTasksSend(encode(request({ ...PARAMS, message })));
    expect(decoded.kind === 'call' && decoded.call.args).toEqual(args);
  });
});
