import {
  HEADER_MESSAGES,
  MCP_PROTOCOL_VERSIONS,
  acceptedMediaTypes,
  batchProblem,
  headerProblem,
  toolCallArguments,
} from './protocol.js';

const OK = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('MCP_PROTOCOL_VERSIONS', () => {
  it('lists the Streamable HTTP revisions the SDK serves, oldest first (world-spec §6.2, ecosystem.md §2.1)', () => {
    expect(MCP_PROTOCOL_VERSIONS).toEqual(['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28']);
  });
});

describe('headerProblem (world-spec §6.2, §11 scenario 9)', () => {
  const rows: Array<[string, Record<string, string | undefined>, string | null]> = [
    ['§6.2 a well-formed POST passes', OK, null],
    [
      '§6.2 a charset parameter is fine',
      { ...OK, 'content-type': 'application/json; charset=utf-8' },
      null,
    ],
    [
      '§6.2 q-values are fine',
      { ...OK, accept: 'text/event-stream;q=0.9, application/json' },
      null,
    ],
    [
      '§11.9 Content-Type text/plain',
      { ...OK, 'content-type': 'text/plain' },
      'Content-Type must be application/json',
    ],
    [
      '§6.2 no Content-Type',
      { ...OK, 'content-type': undefined },
      'Content-Type must be application/json',
    ],
    [
      '§11.9 Accept application/json only',
      { ...OK, accept: 'application/json' },
      'Accept must list both application/json and text/event-stream',
    ],
    [
      '§6.2 Accept text/event-stream only',
      { ...OK, accept: 'text/event-stream' },
      'Accept must list both application/json and text/event-stream',
    ],
    [
      'RFC 9110 §12.5.1: a wildcard covering both types is admitted',
      { ...OK, accept: '*/*' },
      null,
    ],
    [
      'RFC 9110 §12.5.1: a type wildcard covers only its own type',
      { ...OK, accept: 'application/json, image/*' },
      'Accept must list both application/json and text/event-stream',
    ],
    [
      '§6.2 no Accept',
      { ...OK, accept: undefined },
      'Accept must list both application/json and text/event-stream',
    ],
    [
      '§6.2 Content-Type is checked before Accept',
      { 'content-type': 'text/plain' },
      'Content-Type must be application/json',
    ],
    ['§6.2 2025-03-26', { ...OK, 'mcp-protocol-version': '2025-03-26' }, null],
    ['§6.2 2025-06-18', { ...OK, 'mcp-protocol-version': '2025-06-18' }, null],
    ['§6.2 2025-11-25', { ...OK, 'mcp-protocol-version': '2025-11-25' }, null],
    ['ecosystem §2.1 2026-07-28', { ...OK, 'mcp-protocol-version': '2026-07-28' }, null],
    [
      '§11.9 2024-01-01',
      { ...OK, 'mcp-protocol-version': '2024-01-01' },
      'MCP-Protocol-Version "2024-01-01" is not supported; supported: 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28',
    ],
    [
      '§6.2 2024-11-05 predates Streamable HTTP',
      { ...OK, 'mcp-protocol-version': '2024-11-05' },
      'MCP-Protocol-Version "2024-11-05" is not supported; supported: 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28',
    ],
  ];
  it.each(rows)('%s', (_row, headers, expected) => {
    const problem = headerProblem(headers);
    const text =
      problem === null
        ? null
        : problem.kind === 'text'
          ? problem.text
          : HEADER_MESSAGES.version(problem.version);
    expect(text).toBe(expected);
  });
});

describe('batchProblem (world-spec §6.2)', () => {
  const batch = [{ jsonrpc: '2.0', id: 1, method: 'ping' }];
  const rows: Array<[string, string | undefined, unknown, string | null]> = [
    [
      '§6.2 a single request is never a batch problem',
      '2025-11-25',
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      null,
    ],
    ['§6.2 batches under the default 2025-03-26', undefined, batch, null],
    ['§6.2 batches under an explicit 2025-03-26', '2025-03-26', batch, null],
    [
      '§11 candidates: a batch under 2025-06-18',
      '2025-06-18',
      batch,
      'JSON-RPC batches are accepted only under MCP-Protocol-Version 2025-03-26, not 2025-06-18',
    ],
    [
      '§6.2 a batch under 2025-11-25',
      '2025-11-25',
      batch,
      'JSON-RPC batches are accepted only under MCP-Protocol-Version 2025-03-26, not 2025-11-25',
    ],
    [
      '2026-07-28 has no batches',
      '2026-07-28',
      batch,
      'JSON-RPC batches are accepted only under MCP-Protocol-Version 2025-03-26, not 2026-07-28',
    ],
    [
      'JSON-RPC 2.0 §6: a batch repeating a request id',
      undefined,
      [batch[0], { jsonrpc: '2.0', id: 2, method: 'ping' }, { ...batch[0], method: 'tools/list' }],
      'JSON-RPC batch repeats request id 1: every request in a batch needs its own id',
    ],
    [
      'JSON-RPC 2.0 §6: ids 1 and "1" differ; notifications carry none',
      undefined,
      [batch[0], { ...batch[0], id: '1' }, { jsonrpc: '2.0', method: 'notifications/initialized' }],
      null,
    ],
    [
      'MCP cancellation: a batch cancelling one of its own requests runs nothing',
      undefined,
      [
        { jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'x' } },
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 10 } },
        { jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'x' } },
      ],
      'JSON-RPC batch cancels its own request id 10: send notifications/cancelled in its own POST',
    ],
    [
      'MCP cancellation: a batch cancelling a request of another POST is served',
      '2025-03-26',
      [
        { jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'x' } },
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: '10' } },
      ],
      null,
    ],
  ];
  it.each(rows)('%s', (_row, version, body, expected) => {
    expect(batchProblem(version, body)).toBe(expected);
  });
});

describe('acceptedMediaTypes', () => {
  it('drops parameters and case', () => {
    expect(acceptedMediaTypes('Application/JSON; q=1 , text/event-stream')).toEqual([
      'application/json',
      'text/event-stream',
    ]);
  });
});

describe('toolCallArguments (world-spec §3.0: every argument key reaches the plan)', () => {
  it('keeps each tools/call arguments object as parsed, an own __proto__ key included', () => {
    const body = JSON.parse(
      '[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"__proto__":{"x":1},"path":"p"}}},' +
        '{"jsonrpc":"2.0","id":"s","method":"tools/list"},' +
        '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b"}},' +
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"c","arguments":{}}},' +
        '{"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{}}}]',
    ) as unknown;
    const byId = toolCallArguments(body);
    expect([...byId.keys()]).toEqual([1, 2]);
    expect(byId.get(1)!.map((a) => JSON.stringify(a))).toEqual([
      '{"__proto__":{"x":1},"path":"p"}',
      '{}',
    ]);
    expect(byId.get(2)).toEqual([undefined]);
  });

  it('reads a single request like a batch of one', () => {
    const one = JSON.parse(
      '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"a","arguments":{"path":"p"}}}',
    ) as unknown;
    expect([...toolCallArguments(one).entries()]).toEqual([[9, [{ path: 'p' }]]]);
  });
});
