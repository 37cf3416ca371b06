/**
 * The MCP protocol edges (world-spec §6.2–§6.4), each pinned by the exact request a
 * third-party client sent: raw HTTP where the official SDK clients cannot send it (batches,
 * unsupported headers, malformed params), the official v1/v2 clients otherwise.
 */
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from '@modelcontextprotocol/client';
import { canonicalBytes } from '@world/canonical';
import { hex, rawRequest, ref, startHarness, tool, type Harness } from './fake-world.js';

const READ = hex('a');
const JSON_AND_SSE = 'application/json, text/event-stream';
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const DENIED_WORLD = {
  effects: [{ id: 'e1', status: 'denied', record: ref('c') }],
  plan: ref('f'),
};

describe('MCP protocol edges (world-spec §6.2–§6.4)', () => {
  let h: Harness;
  let mcpUrl: string;

  beforeAll(async () => {
    h = await startHarness({ callDeadlineMs: 2000 });
    mcpUrl = `${h.gateway.url}/mcp`;
    h.world.registry = [
      tool('ailang-read', 'Workspace.Read'),
      tool('ailang-write', 'Workspace.Read'),
      tool('ailang-check', 'Workspace.Read'),
      tool('ailang-run', 'Workspace.Read'),
    ];
    h.world.addSession(READ, [['Workspace.Read', 5]]);
    h.world.behaviour.set('ailang-read', { kind: 'output', output: { content: 'hi\n' } });
    h.world.behaviour.set('ailang-write', { kind: 'output', output: { world: DENIED_WORLD } });
    h.world.behaviour.set('ailang-check', {
      kind: 'output',
      output: { ok: false, status: 'denied', refused: 'the Ailang.Check effect ended denied' },
    });
    h.world.behaviour.set('ailang-run', {
      kind: 'output',
      output: {
        world: { effects: [{ id: 'e1', status: 'failed', record: ref('b') }], plan: ref('f') },
      },
    });
  });

  afterAll(async () => {
    await h.close();
  });

  beforeEach(() => {
    h.world.calls.length = 0;
  });

  const post = (body: unknown, headers: Record<string, string> = {}, url = mcpUrl) =>
    rawRequest(
      url,
      'POST',
      {
        'content-type': 'application/json',
        accept: JSON_AND_SSE,
        authorization: `Bearer ${READ}`,
        ...headers,
      },
      JSON.stringify(body),
    );
  const modern = (method: string, extra: Record<string, string> = {}) => ({
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
    ...extra,
  });
  const invokes = () => h.world.callsOf('planner.invoke').length;
  /** The one JSON-RPC message of a single-event SSE answer. */
  const sse = (body: string): unknown => {
    expect(body.startsWith('event: message\ndata: ')).toBe(true);
    return JSON.parse(body.slice('event: message\ndata: '.length).trim());
  };

  it('item 1: refuses a 2025-03-26 batch repeating a request id with 400 before anything runs', async () => {
    const item = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'ailang-read', arguments: {} },
    };
    const res = await post([item, item]);
    expect([res.status, res.headers['content-type'], res.body]).toEqual([
      400,
      'text/plain; charset=utf-8',
      'JSON-RPC batch repeats request id 1: every request in a batch needs its own id',
    ]);
    expect(invokes()).toBe(0);
  });

  it('item 1: still runs a batch whose ids differ, answering every item', async () => {
    const res = await post([
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ailang-read' } },
      { jsonrpc: '2.0', id: '1', method: 'tools/call', params: { name: 'ailang-read' } },
    ]);
    expect(res.status).toBe(200);
    const ids = res.body
      .split('\n\n')
      .filter((e) => e !== '')
      .map((e) => (sse(`${e}\n\n`) as { id: unknown }).id);
    expect(ids.sort()).toEqual([1, '1']);
    expect(invokes()).toBe(2);
  });

  it('item 2: answers an unknown 2026-07-28 method with 404 and -32601, as it answers ping', async () => {
    const unknown = await post(
      { jsonrpc: '2.0', id: 5, method: 'foo/bar', params: { _meta: MODERN_META } },
      modern('foo/bar'),
    );
    const ping = await post(
      { jsonrpc: '2.0', id: 6, method: 'ping', params: { _meta: MODERN_META } },
      modern('ping'),
    );
    expect([unknown.status, unknown.headers['content-type'], JSON.parse(unknown.body)]).toEqual([
      404,
      'application/json',
      { jsonrpc: '2.0', id: 5, error: { code: -32601, message: 'method not found: "foo/bar"' } },
    ]);
    expect([ping.status, JSON.parse(ping.body)]).toEqual([
      404,
      { jsonrpc: '2.0', id: 6, error: { code: -32601, message: 'method not found: "ping"' } },
    ]);
  });

  it('item 2: keeps the 2025-era unknown method in-band on 200', async () => {
    const res = await post({ jsonrpc: '2.0', id: 7, method: 'foo/bar' });
    expect([res.status, sse(res.body)]).toEqual([
      200,
      { jsonrpc: '2.0', id: 7, error: { code: -32601, message: 'method not found: "foo/bar"' } },
    ]);
  });

  it('item 3: answers an unsupported MCP-Protocol-Version on a 2026-07-28 request with 400 JSON -32022', async () => {
    const res = await post(
      { jsonrpc: '2.0', id: 8, method: 'tools/list', params: { _meta: MODERN_META } },
      modern('tools/list', { 'mcp-protocol-version': '2099-01-01' }),
    );
    expect([res.status, res.headers['content-type'], JSON.parse(res.body)]).toEqual([
      400,
      'application/json',
      {
        jsonrpc: '2.0',
        id: 8,
        error: {
          code: -32022,
          message: 'Unsupported protocol version: 2099-01-01',
          data: {
            supported: ['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'],
            requested: '2099-01-01',
          },
        },
      },
    ]);
  });

  it('item 3: keeps the world-spec §6.2 text for a 2025-era request', async () => {
    const res = await post(
      { jsonrpc: '2.0', id: 9, method: 'ping' },
      { 'mcp-protocol-version': '2099-01-01' },
    );
    expect([res.status, res.headers['content-type'], res.body]).toEqual([
      400,
      'text/plain; charset=utf-8',
      'MCP-Protocol-Version "2099-01-01" is not supported; supported: 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28',
    ]);
  });

  it.each(['2024-11-05', '2099-01-01'])(
    'item 4: answers initialize asking for %s with 2025-11-25, which the next request may carry',
    async (asked) => {
      const init = await post({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: asked,
          capabilities: {},
          clientInfo: { name: 'raw', version: '1.0.0' },
        },
      });
      const agreed = (sse(init.body) as { result: { protocolVersion: string } }).result
        .protocolVersion;
      expect(agreed).toBe('2025-11-25');
      const next = await post(
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
        { 'mcp-protocol-version': agreed },
      );
      expect(next.status).toBe(200);
    },
  );

  it('item 4: the v1 client negotiates and lists over the legacy handshake', async () => {
    const client = new V1Client({ name: 'v1-test', version: '1.0.0' });
    await client.connect(
      new V1Transport(new URL(mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${READ}` } },
      }),
    );
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual([
      'ailang-read',
      'ailang-write',
      'ailang-check',
      'ailang-run',
    ]);
    await client.close();
  });

  const malformed: Array<[string, unknown, string]> = [
    [
      'arguments an array',
      { name: 'ailang-read', arguments: [] },
      'invalid params: arguments must be a JSON object',
    ],
    ['no name', { arguments: {} }, 'invalid params: params.name must be a string'],
    ['no params', undefined, 'invalid params: params must be a JSON object'],
  ];
  it.each(malformed)(
    'item 5: answers a 2025-era tools/call with %s with one line -32602',
    async (_row, params, message) => {
      const res = await post({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        ...(params !== undefined && { params }),
      });
      expect([res.status, sse(res.body)]).toEqual([
        200,
        { jsonrpc: '2.0', id: 3, error: { code: -32602, message } },
      ]);
      expect(invokes()).toBe(0);
    },
  );

  it('item 5: answers a 2026-07-28 tools/call without a name with one line -32602', async () => {
    const res = await post(
      { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { _meta: MODERN_META } },
      modern('tools/call'),
    );
    expect([res.status, JSON.parse(res.body)]).toEqual([
      200,
      {
        jsonrpc: '2.0',
        id: 4,
        error: { code: -32602, message: 'invalid params: params.name must be a string' },
      },
    ]);
    expect(invokes()).toBe(0);
  });

  it.each(['*/*', 'application/*, text/*'])(
    'item 7: admits Accept %s (curl default) and answers the SSE event',
    async (accept) => {
      const res = await post({ jsonrpc: '2.0', id: 7, method: 'ping' }, { accept });
      expect([res.status, res.headers['content-type'], res.body]).toEqual([
        200,
        'text/event-stream',
        'event: message\ndata: {"result":{},"jsonrpc":"2.0","id":7}\n\n',
      ]);
    },
  );

  it('item 7: still refuses an Accept that covers only one of the types', async () => {
    const res = await post({ jsonrpc: '2.0', id: 7, method: 'ping' }, { accept: 'text/*' });
    expect([res.status, res.body]).toEqual([
      400,
      'Accept must list both application/json and text/event-stream',
    ]);
  });

  it('item 8: refuses a foreign Origin on /MCP with the JSON-RPC 403 of /mcp', async () => {
    const upper = await post(
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { origin: 'http://evil.example' },
      `${h.gateway.url}/MCP`,
    );
    const lower = await post(
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { origin: 'http://evil.example' },
    );
    expect([upper.status, upper.headers['content-type'], JSON.parse(upper.body)]).toEqual([
      403,
      'application/json',
      {
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Invalid Origin: evil.example' },
        id: null,
      },
    ]);
    expect([lower.status, lower.body]).toEqual([upper.status, upper.body]);
  });

  describe('item 10: isError on refusals, denials and failures (v2 client)', () => {
    let client: V2Client;
    beforeAll(async () => {
      client = new V2Client({ name: 'v2-test', version: '1.0.0' });
      await client.connect(
        new V2Transport(new URL(mcpUrl), {
          requestInit: { headers: { authorization: `Bearer ${READ}` } },
        }),
      );
    });
    afterAll(async () => {
      await client.close();
    });

    it('sets isError on a denied effect and keeps the world block as the reference shapes it', async () => {
      const result = await client.callTool({ name: 'ailang-write', arguments: {} });
      expect(result).toEqual({
        content: [{ type: 'text', text: canonicalBytes({ world: DENIED_WORLD }).toString('utf8') }],
        structuredContent: { world: DENIED_WORLD },
        isError: true,
        // the entry the call committed, as every tools/call result cites it
        _meta: { 'world/entryIndex': 3, 'world/entryHash': ref('e') },
      });
    });

    it('sets isError on ok:false and on a failed effect', async () => {
      const check = await client.callTool({ name: 'ailang-check', arguments: {} });
      const run = await client.callTool({ name: 'ailang-run', arguments: {} });
      expect([check.isError, run.isError]).toEqual([true, true]);
      expect(check.structuredContent).toEqual({
        ok: false,
        status: 'denied',
        refused: 'the Ailang.Check effect ended denied',
        world: { effects: [{ id: 'e1', status: 'ok', record: ref('e') }], plan: ref('f') },
      });
    });

    it('leaves isError out of a result that succeeded', async () => {
      const result = await client.callTool({ name: 'ailang-read', arguments: {} });
      expect(['isError' in result, result.structuredContent]).toEqual([
        false,
        {
          content: 'hi\n',
          world: { effects: [{ id: 'e1', status: 'ok', record: ref('e') }], plan: ref('f') },
        },
      ]);
    });
  });
});
