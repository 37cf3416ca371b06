import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from '@modelcontextprotocol/client';
import { canonicalBytes } from '@world/canonical';
import {
  DeadlineExceededError,
  EffectsUnrecordedError,
  InvocationInFlightError,
  LeaseLostError,
  MESSAGES,
  ServiceUnavailableError,
  credentialIdOf,
} from '@world/contracts';
import { hex, rawRequest, ref, startHarness, tool, type Harness } from './fake-world.js';

const READ = hex('a');
const FULL = hex('b');
const ZERO = hex('d');
const EXPIRED = hex('e');
const REVOKED = hex('f');
const LAPSED = hex('9');
const UNKNOWN = hex('8');

const REGISTRY = [
  tool('ailang-read', 'Workspace.Read'),
  tool('ailang-write', 'Workspace.Write'),
  tool('ailang-run', 'Ailang.Run', { inputSchema: { properties: { path: { type: 'string' } } } }),
  tool('unrecorded', 'Fail.Unrecorded'),
  tool('lease-lost', 'Fail.Lease'),
  tool('unavailable', 'Fail.Unavailable'),
  tool('internal', 'Fail.Internal'),
  tool('in-flight', 'Fail.InFlight'),
  tool('deadline', 'Fail.Deadline'),
  tool('hang', 'Fail.Hang'),
];
const FULL_GRANTS: Array<[string, number]> = REGISTRY.map((t) => [t.access.effect, 50]);
const RECORD = ref('e');

const JSON_AND_SSE = 'application/json, text/event-stream';

describe('POST /mcp against fake services on an in-process bus', () => {
  let h: Harness;
  let mcpUrl: string;

  beforeAll(async () => {
    h = await startHarness({ callDeadlineMs: 300 });
    mcpUrl = `${h.gateway.url}/mcp`;
    h.world.registry = REGISTRY;
    h.world.addSession(READ, [['Workspace.Read', 5]]);
    h.world.addSession(FULL, FULL_GRANTS);
    h.world.addSession(ZERO, [['Workspace.Read', 0]]);
    h.world.addSession(EXPIRED, [['Workspace.Read', 5]], { state: 'expired' });
    h.world.addSession(REVOKED, [['Workspace.Read', 5]], { state: 'revoked' });
    h.world.addSession(LAPSED, [['Workspace.Read', 5]], { expiresAt: Date.now() - 1 });
    h.world.behaviour.set('ailang-read', {
      kind: 'output',
      output: { content: 'hello\n', ok: true, tool: ref('7'), policy_digest: hex('6') },
    });
    h.world.behaviour.set('unrecorded', {
      kind: 'throw',
      error: () =>
        new EffectsUnrecordedError('mcp:ep1:t-unrecorded', [RECORD, ref('d')], 'world head moved'),
    });
    h.world.behaviour.set('lease-lost', {
      kind: 'throw',
      error: () => new LeaseLostError('ep1', 4),
    });
    h.world.behaviour.set('unavailable', {
      kind: 'throw',
      error: () => new ServiceUnavailableError('no service answers broker.effect.execute'),
    });
    h.world.behaviour.set('internal', {
      kind: 'throw',
      error: () => new Error('/var/secret exploded'),
    });
    h.world.behaviour.set('in-flight', {
      kind: 'throw',
      error: () => new InvocationInFlightError(),
    });
    h.world.behaviour.set('deadline', {
      kind: 'throw',
      error: () => new DeadlineExceededError(MESSAGES.deadline),
    });
    h.world.behaviour.set('hang', { kind: 'hang' });
  });

  afterAll(async () => {
    await h.close();
  });

  beforeEach(() => {
    h.world.calls.length = 0;
    h.log.lines.length = 0;
  });

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: JSON_AND_SSE, ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const call = (
    token: string,
    id: number,
    name: string,
    args: unknown = {},
    extra: Record<string, unknown> = {},
  ) =>
    post(
      { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, ...extra } },
      { authorization: `Bearer ${token}` },
    );

  async function v1(token: string): Promise<V1Client> {
    const client = new V1Client({ name: 'v1-test', version: '1.0.0' });
    await client.connect(
      new V1Transport(new URL(mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    return client;
  }

  async function v2(token: string): Promise<V2Client> {
    const client = new V2Client(
      { name: 'v2-test', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new V2Transport(new URL(mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    return client;
  }

  describe('authorization comes first (world-spec §6.1, §11 scenario 8)', () => {
    const rows: Array<[string, Record<string, string>, string]> = [
      ['absent', {}, MESSAGES.sessionAbsent],
      ['an X-API-Key header is not a credential', { 'x-api-key': READ }, MESSAGES.sessionAbsent],
      ['malformed', { authorization: 'Bearer xyz' }, MESSAGES.sessionMalformed],
      ['unknown', { authorization: `Bearer ${UNKNOWN}` }, MESSAGES.sessionUnknown],
      [
        'revoked answers as unknown',
        { authorization: `Bearer ${REVOKED}` },
        MESSAGES.sessionUnknown,
      ],
      ['expired', { authorization: `Bearer ${EXPIRED}` }, MESSAGES.sessionExpired],
      [
        'past its expiresAt though the broker still has it',
        { authorization: `Bearer ${LAPSED}` },
        MESSAGES.sessionExpired,
      ],
    ];
    it.each(rows)(
      'answers %s with 401 text/plain before reading Accept or the body',
      async (_row, headers, text) => {
        const res = await fetch(mcpUrl, {
          method: 'POST',
          headers: { 'content-type': 'text/plain', ...headers },
          body: 'not json',
        });
        expect([res.status, res.headers.get('content-type'), await res.text()]).toEqual([
          401,
          'text/plain; charset=utf-8',
          text,
        ]);
        expect(h.world.calls.filter((c) => c.subject !== 'broker.session.resolve')).toEqual([]);
      },
    );

    it('never asks the broker about an absent or malformed credential', async () => {
      await post({ jsonrpc: '2.0', id: 1, method: 'ping' });
      await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { authorization: 'Bearer xyz' });
      expect(h.world.calls).toEqual([]);
    });

    it('asks the broker by credential id, never by token', async () => {
      await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { authorization: `Bearer ${UNKNOWN}` });
      expect(h.world.callsOf('broker.session.resolve')).toEqual([
        { credentialId: credentialIdOf(UNKNOWN) },
      ]);
    });

    it('answers GET without a session 401, not 405', async () => {
      const res = await fetch(mcpUrl);
      expect([res.status, await res.text()]).toEqual([401, MESSAGES.sessionAbsent]);
    });
  });

  describe('transport checks after authorization (world-spec §6.2, §11 scenario 9)', () => {
    const auth = { authorization: `Bearer ${READ}` };
    const rows: Array<[string, Record<string, string>, string]> = [
      [
        'Accept application/json only',
        { accept: 'application/json' },
        'Accept must list both application/json and text/event-stream',
      ],
      [
        'Content-Type text/plain',
        { 'content-type': 'text/plain' },
        'Content-Type must be application/json',
      ],
      [
        'MCP-Protocol-Version 2024-01-01',
        { 'mcp-protocol-version': '2024-01-01' },
        'MCP-Protocol-Version "2024-01-01" is not supported; supported: 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28',
      ],
    ];
    it.each(rows)('answers %s with 400 text/plain', async (_row, headers, text) => {
      const res = await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { ...auth, ...headers });
      expect([res.status, res.headers.get('content-type'), await res.text()]).toEqual([
        400,
        'text/plain; charset=utf-8',
        text,
      ]);
    });

    it.each(['GET', 'DELETE'])('answers %s 405 with Allow: POST', async (method) => {
      const res = await fetch(mcpUrl, { method, headers: { ...auth, accept: JSON_AND_SSE } });
      expect([res.status, res.headers.get('allow'), await res.json()]).toEqual([
        405,
        'POST',
        { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Method not allowed.' } },
      ]);
    });

    it('answers a body over 4 MiB with 413 and a JSON-RPC envelope, never HTML', async () => {
      const res = await post('x'.repeat(4 * 1024 * 1024 + 1), auth);
      expect([res.status, res.headers.get('content-type'), await res.json()]).toEqual([
        413,
        'application/json',
        {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32600, message: 'request body exceeds 4194304 bytes' },
        },
      ]);
    });

    it('answers a body that is not JSON with -32700', async () => {
      const res = await post('{"jsonrpc":', auth);
      expect([res.status, await res.json()]).toEqual([
        400,
        {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32700, message: 'Parse error: the request body is not valid JSON' },
        },
      ]);
    });

    it('refuses a batch under 2025-06-18 (world-spec §11 additional candidates)', async () => {
      const res = await post([{ jsonrpc: '2.0', id: 1, method: 'ping' }], {
        ...auth,
        'mcp-protocol-version': '2025-06-18',
      });
      expect([res.status, await res.text()]).toEqual([
        400,
        'JSON-RPC batches are accepted only under MCP-Protocol-Version 2025-03-26, not 2025-06-18',
      ]);
    });

    it('serves the spec golden ping as one SSE event', async () => {
      const res = await post({ jsonrpc: '2.0', id: 7, method: 'ping' }, auth);
      expect([res.status, res.headers.get('content-type'), await res.text()]).toEqual([
        200,
        'text/event-stream',
        'event: message\ndata: {"result":{},"jsonrpc":"2.0","id":7}\n\n',
      ]);
    });
  });

  describe('Host and Origin on a loopback bind (DNS-rebinding defence)', () => {
    it('refuses a foreign Host with 403 before authorization', async () => {
      const res = await rawRequest(mcpUrl, 'POST', { host: 'evil.example' });
      expect([res.status, JSON.parse(res.body)]).toEqual([
        403,
        {
          jsonrpc: '2.0',
          error: { code: -32000, message: 'Invalid Host: evil.example' },
          id: null,
        },
      ]);
    });

    it('refuses a foreign Origin with 403', async () => {
      const res = await post(
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { authorization: `Bearer ${READ}`, origin: 'http://evil.example' },
      );
      expect([res.status, await res.json()]).toEqual([
        403,
        {
          jsonrpc: '2.0',
          error: { code: -32000, message: 'Invalid Origin: evil.example' },
          id: null,
        },
      ]);
    });

    it('admits a localhost Origin', async () => {
      const res = await post(
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { authorization: `Bearer ${READ}`, origin: 'http://localhost:5173' },
      );
      expect(res.status).toBe(200);
    });

    it('refuses a foreign Host on the REST routes with the REST envelope', async () => {
      const res = await rawRequest(`${h.gateway.url}/v1/health`, 'GET', {
        host: 'evil.example:7644',
      });
      expect([res.status, JSON.parse(res.body)]).toEqual([
        403,
        { error: { class: 'Forbidden', message: 'Invalid Host: evil.example' } },
      ]);
    });
  });

  describe('tools/list (world-spec §6.2, §11 scenario 10)', () => {
    const surface = (names: string[]) =>
      names.map((name) => {
        const t = REGISTRY.find((d) => d.id === name)!;
        const inputSchema =
          'type' in t.inputSchema ? t.inputSchema : { type: 'object', ...t.inputSchema };
        return {
          name,
          title: t.title,
          description: t.description,
          inputSchema,
          outputSchema: t.outputSchema,
        };
      });

    it('lists exactly the tools the planner admits, for the v1 client over the legacy handshake', async () => {
      const client = await v1(READ);
      try {
        expect(await client.listTools()).toEqual({ tools: surface(['ailang-read']) });
      } finally {
        await client.close();
      }
      expect(h.world.callsOf('planner.tools.list')).toEqual([
        {
          grants: h.world.sessions.get(credentialIdOf(READ))!.session.grants,
          now: expect.any(Number),
        },
      ]);
    });

    it('lists the whole registry in registry order for a full session, for the v2 client pinned to 2026-07-28', async () => {
      const client = await v2(FULL);
      try {
        const listed = await client.listTools();
        expect(listed.tools).toEqual(surface(REGISTRY.map((t) => t.id)));
      } finally {
        await client.close();
      }
    });

    it('still lists a tool whose grant has budget 0', async () => {
      const client = await v1(ZERO);
      try {
        expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['ailang-read']);
      } finally {
        await client.close();
      }
    });
  });

  describe('tools/call (world-spec §6.2, §6.3, §11 scenarios 11-12)', () => {
    const output = {
      content: 'hello\n',
      ok: true,
      tool: ref('7'),
      policy_digest: hex('6'),
      world: { effects: [{ id: 'e1', status: 'ok', record: RECORD }], plan: ref('f') },
    };
    const text = Buffer.from(canonicalBytes(output)).toString('utf8');

    it('answers a call with the output as structuredContent and its committed bytes as content[0].text', async () => {
      const res = await call(READ, 2, 'ailang-read', { path: 'hello.ail' });
      expect([res.status, res.headers.get('content-type')]).toEqual([200, 'text/event-stream']);
      const body = await res.text();
      expect(body.startsWith('event: message\ndata: ')).toBe(true);
      expect(JSON.parse(body.slice('event: message\ndata: '.length))).toEqual({
        jsonrpc: '2.0',
        id: 2,
        result: {
          content: [{ type: 'text', text }],
          structuredContent: output,
          _meta: { 'world/entryIndex': 3, 'world/entryHash': ref('e') },
        },
      });
      expect(h.world.callsOf('planner.invoke')).toEqual([
        {
          surface: 'mcp',
          session: h.world.sessions.get(credentialIdOf(READ))!.session,
          toolId: 'ailang-read',
          arguments: { path: 'hello.ail' },
          // each call's own cancellation handle (planner.call.cancelled names it)
          callId: expect.stringMatching(
            /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
          ),
        },
      ]);
    });

    it('gives the v1 and v2 clients the same result', async () => {
      const expected = {
        content: [{ type: 'text', text }],
        structuredContent: output,
        _meta: { 'world/entryIndex': 3, 'world/entryHash': ref('e') },
      };
      const c1 = await v1(READ);
      const c2 = await v2(READ);
      try {
        expect(
          await c1.callTool({ name: 'ailang-read', arguments: { path: 'hello.ail' } }),
        ).toEqual(expected);
        const modern = await c2.callTool({ name: 'ailang-read', arguments: { path: 'hello.ail' } });
        expect({
          content: modern.content,
          structuredContent: modern.structuredContent,
          _meta: modern._meta,
        }).toEqual({
          ...expected,
          // the v2 SDK's server adds its identity beside World's keys
          _meta: {
            ...expected._meta,
            'io.modelcontextprotocol/serverInfo': { name: 'world', version: '0.1.0' },
          },
        });
      } finally {
        await c1.close();
        await c2.close();
      }
    });

    it('passes params._meta["world/taskId"] to the planner as the idempotency key', async () => {
      const client = await v2(READ);
      try {
        await client.callTool({
          name: 'ailang-read',
          arguments: { path: 'hello.ail' },
          _meta: { 'world/taskId': 'task-1.a_b' },
        });
      } finally {
        await client.close();
      }
      expect(h.world.callsOf('planner.invoke').map((c) => c.taskId)).toEqual(['task-1.a_b']);
    });

    it.each([['resources/list'], ['no/such-method']])(
      'answers the unserved method %s with -32601 method not found naming it (§6.3)',
      async (method) => {
        const res = await post(
          { jsonrpc: '2.0', id: 5, method, params: {} },
          { authorization: `Bearer ${READ}` },
        );
        expect(await res.text()).toBe(
          `event: message\ndata: {"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"method not found: \\"${method}\\""}}\n\n`,
        );
        expect(h.world.callsOf('planner.invoke')).toEqual([]);
      },
    );

    it('answers an unlisted tool with -32602 unknown tool and invokes nothing (§11 scenario 11)', async () => {
      const res = await call(READ, 3, 'ailang-write', { path: 'x', content: 'y' });
      expect(await res.text()).toBe(
        'event: message\ndata: {"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"unknown tool \\"ailang-write\\""}}\n\n',
      );
      expect(h.world.callsOf('planner.invoke')).toEqual([]);
    });

    it('answers a world/taskId still in flight with -32602 task id already used (README "Exactly-once over MCP")', async () => {
      const res = await call(FULL, 3, 'in-flight', {});
      expect(await res.text()).toBe(
        'event: message\ndata: {"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"task id already used in this session"}}\n\n',
      );
    });

    it('answers the v1 client an unlisted tool with -32602', async () => {
      const client = await v1(READ);
      try {
        await expect(
          client.callTool({ name: 'ailang-write', arguments: {} }),
        ).rejects.toMatchObject({
          code: -32602,
          message: 'MCP error -32602: unknown tool "ailang-write"',
        });
      } finally {
        await client.close();
      }
    });

    it('refuses a task id outside the grammar with -32602 and invokes nothing', async () => {
      const res = await call(
        READ,
        4,
        'ailang-read',
        {},
        { _meta: { 'world/taskId': 'has space' } },
      );
      expect(await res.text()).toBe(
        'event: message\ndata: {"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"invalid params: _meta[\\"world/taskId\\"] must be 1-128 characters of [A-Za-z0-9._-]"}}\n\n',
      );
      expect(h.world.callsOf('planner.invoke')).toEqual([]);
    });

    it('refuses arguments that are not a JSON object with -32602 and invokes nothing', async () => {
      const res = await call(READ, 5, 'ailang-read', ['hello.ail']);
      const answer = JSON.parse((await res.text()).slice('event: message\ndata: '.length));
      expect([answer.id, answer.error.code]).toEqual([5, -32602]);
      expect(h.world.callsOf('planner.invoke')).toEqual([]);
    });

    it('treats absent arguments as the empty object', async () => {
      await post(
        { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'ailang-read' } },
        { authorization: `Bearer ${READ}` },
      );
      expect(h.world.callsOf('planner.invoke').map((c) => c.arguments)).toEqual([{}]);
    });

    it('adds "type":"object" to an input schema without one', async () => {
      const client = await v1(FULL);
      try {
        const run = (await client.listTools()).tools.find((t) => t.name === 'ailang-run');
        expect(run?.inputSchema).toEqual({
          type: 'object',
          properties: { path: { type: 'string' } },
        });
      } finally {
        await client.close();
      }
    });
  });

  describe('host failures: one plain JSON envelope (world-spec §4.5, §6.3)', () => {
    const rows: Array<[string, string]> = [
      ['EffectsUnrecorded', 'unrecorded'],
      ['a lost lease', 'lease-lost'],
      ['an unavailable service', 'unavailable'],
      ['an untyped planner failure', 'internal'],
    ];
    it.each(rows)('answers %s with -32603 host callback failed', async (_row, name) => {
      const res = await call(FULL, 2, name);
      expect([res.status, res.headers.get('content-type'), await res.text()]).toEqual([
        200,
        'application/json',
        '{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"host callback failed"}}',
      ]);
    });

    it.each([
      ['the planner reports its deadline', 'deadline'],
      ['the planner does not answer before the deadline', 'hang'],
    ])('answers when %s with -32603 host callback timed out', async (_row, name) => {
      const res = await call(FULL, 9, name);
      expect(await res.text()).toBe(
        '{"jsonrpc":"2.0","id":9,"error":{"code":-32603,"message":"host callback timed out"}}',
      );
    });

    // A keyed call's planner may still run it and commit: only a resend of the task id can tell.
    it.each([
      ['the planner reports its deadline', 'deadline', 'host callback timed out'],
      [
        'the planner does not answer before the deadline',
        'hang',
        'invocation outcome is not confirmed; resend the same task id',
      ],
    ])('answers a keyed call (world/taskId) when %s', async (_row, name, message) => {
      const res = await call(FULL, 9, name, {}, { _meta: { 'world/taskId': `k-${name}` } });
      expect(JSON.parse(await res.text())).toEqual({
        jsonrpc: '2.0',
        id: 9,
        error: { code: -32603, message },
      });
    });

    it('answers a tools/list the planner cannot serve with -32603 host callback failed', async () => {
      h.world.toolsListError = () =>
        new ServiceUnavailableError('no service answers planner.tools.list');
      try {
        const res = await post(
          { jsonrpc: '2.0', id: 11, method: 'tools/list' },
          { authorization: `Bearer ${READ}` },
        );
        expect(await res.text()).toBe(
          '{"jsonrpc":"2.0","id":11,"error":{"code":-32603,"message":"host callback failed"}}',
        );
        expect(h.log.lines.map((l) => l.message)).toEqual([
          'mcp refusal: tools/list -: "Unavailable: no service answers planner.tools.list"',
        ]);
      } finally {
        h.world.toolsListError = undefined;
      }
    });

    it('logs the invocation id and every effect record ref of EffectsUnrecorded for the operator', async () => {
      await call(FULL, 2, 'unrecorded');
      expect(h.log.lines.filter((l) => l.message.startsWith('mcp refusal'))).toEqual([
        {
          level: 'error',
          fields: {
            invocationId: 'mcp:ep1:t-unrecorded',
            effectRecords: [RECORD, ref('d')],
            tool: 'unrecorded',
          },
          message: `mcp refusal: tools/call mcp:ep1:t-unrecorded: "world head moved records [${RECORD} ${ref('d')}]"`,
        },
      ]);
    });

    it('never sends the cause of an untyped failure', async () => {
      const res = await call(FULL, 2, 'internal');
      expect(await res.text()).not.toContain('secret');
    });

    it('answers a failing batch with one envelope of id null and stops at the failure', async () => {
      const res = await post(
        [
          {
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'lease-lost', arguments: {} },
          },
          {
            jsonrpc: '2.0',
            id: 2,
            method: 'tools/call',
            params: { name: 'ailang-read', arguments: {} },
          },
        ],
        { authorization: `Bearer ${FULL}` },
      );
      expect([res.status, await res.text()]).toEqual([
        200,
        '{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"host callback failed"}}',
      ]);
      expect(h.world.callsOf('planner.invoke').map((c) => c.toolId)).toEqual(['lease-lost']);
    });

    it('runs the calls of a batch one after another', async () => {
      const res = await post(
        [
          {
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'ailang-read', arguments: { path: 'a' } },
          },
          {
            jsonrpc: '2.0',
            id: 2,
            method: 'tools/call',
            params: { name: 'ailang-read', arguments: { path: 'b' } },
          },
        ],
        { authorization: `Bearer ${FULL}` },
      );
      const events = (await res.text())
        .split('\n\n')
        .filter((e) => e !== '')
        .map((e) => JSON.parse(e.slice('event: message\ndata: '.length)));
      expect(events.map((e) => [e.id, e.result.structuredContent.ok])).toEqual([
        [1, true],
        [2, true],
      ]);
      expect(h.world.callsOf('planner.invoke').map((c) => c.arguments)).toEqual([
        { path: 'a' },
        { path: 'b' },
      ]);
    });

    it('reaches the v1 client as an MCP error -32603', async () => {
      const client = await v1(FULL);
      try {
        await expect(client.callTool({ name: 'unrecorded', arguments: {} })).rejects.toMatchObject({
          code: -32603,
        });
      } finally {
        await client.close();
      }
    });

    it('reaches the v2 client as an MCP error -32603', async () => {
      const client = await v2(FULL);
      try {
        await expect(client.callTool({ name: 'lease-lost', arguments: {} })).rejects.toMatchObject({
          code: -32603,
          message: 'host callback failed',
        });
      } finally {
        await client.close();
      }
    });
  });
});
