/**
 * The gateway's A2A surfaces against fake services on an in-process bus: the reference
 * `tasks/send` (world-spec §6.1, §6.5), the current protocol through the `@a2a-js/sdk` clients
 * (1.0 and its 0.3 path), and both agent cards (§5.13).
 */
import { AgentCard } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  createAuthenticatingFetchWithRetry,
  type Client,
} from '@a2a-js/sdk/client';
import { canonicalBytes } from '@world/canonical';
import {
  DeadlineExceededError,
  EffectsUnrecordedError,
  InvocationNotCommittedError,
  LeaseLostError,
  MESSAGES,
  NoHandlerError,
  ServiceUnavailableError,
  TransportTimeoutError,
  UncertainError,
} from '@world/contracts';
import { startA2aHarness, type A2aHarness } from './a2a-fakes.js';
import { hex, ref, tool } from './fake-world.js';

const READ = hex('a');
const FULL = hex('b');
const EXPIRED = hex('e');
const REVOKED = hex('f');
const UNKNOWN = hex('8');

const R1 = ref('e');
const R2 = ref('d');
const PIN = ref('1');
const REGISTRY = [
  tool('ailang-read', 'Workspace.Read'),
  tool('ailang-write', 'Workspace.Write'),
  tool('unrecorded', 'Fail.Unrecorded'),
  tool('not-committed', 'Fail.NotCommitted'),
  tool('uncertain', 'Fail.Uncertain'),
  tool('no-handler', 'Fail.NoHandler'),
  tool('deadline', 'Fail.Deadline'),
  tool('lease-lost', 'Fail.Lease'),
  tool('crash', 'Fail.Crash'),
  tool('hang', 'Fail.Hang'),
  tool('unavailable', 'Fail.Unavailable'),
];
const FULL_GRANTS: Array<[string, number]> = REGISTRY.map((t) => [t.access.effect, 50]);
const READ_OUTPUT = { content: 'hello\n', ok: true, tool: ref('7'), policy_digest: hex('6') };
const NOT_AVAILABLE = 'transition invocation is not available in this daemon';

describe('A2A on the gateway against fake services (in-process bus)', () => {
  let h: A2aHarness;
  let a2aUrl: string;

  beforeAll(async () => {
    h = await startA2aHarness({ callDeadlineMs: 300 });
    a2aUrl = `${h.gateway.url}/a2a`;
    h.world.registry = REGISTRY;
    h.world.addSession(READ, [['Workspace.Read', 5]]);
    h.world.addSession(FULL, FULL_GRANTS);
    h.world.addSession(EXPIRED, [['Workspace.Read', 5]], { state: 'expired' });
    h.world.addSession(REVOKED, [['Workspace.Read', 5]], { state: 'revoked' });
    h.world.behaviour.set('ailang-read', { kind: 'output', output: READ_OUTPUT });
    h.world.behaviour.set('unrecorded', {
      kind: 'throw',
      error: () => new EffectsUnrecordedError('a2a:ep1:u1', [R1, R2], 'ledger down'),
    });
    h.world.behaviour.set('not-committed', {
      kind: 'throw',
      error: () => new InvocationNotCommittedError(),
    });
    h.world.behaviour.set('uncertain', { kind: 'throw', error: () => new UncertainError() });
    h.world.behaviour.set('no-handler', { kind: 'throw', error: () => new NoHandlerError() });
    h.world.behaviour.set('deadline', {
      kind: 'throw',
      error: () => new DeadlineExceededError('plan phase ran out'),
    });
    h.world.behaviour.set('lease-lost', {
      kind: 'throw',
      error: () => new LeaseLostError('ep1', 4),
    });
    h.world.behaviour.set('crash', {
      kind: 'throw',
      error: () => new Error('/var/secret exploded'),
    });
    h.world.behaviour.set('hang', { kind: 'hang' });
    h.world.behaviour.set('unavailable', {
      kind: 'throw',
      error: () => new ServiceUnavailableError('no service answers planner.invoke'),
    });
  });

  afterAll(async () => {
    await h.close();
  });

  beforeEach(() => {
    h.world.calls.length = 0;
    h.log.lines.length = 0;
    h.world.toolsListError = undefined;
    h.world.invocationGetError = undefined;
  });

  const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const send = (
    token: string | null,
    taskId: string,
    skill: string,
    args: unknown = { path: 'hello.ail' },
    extra: { id?: unknown; metadata?: Record<string, unknown>; parts?: unknown[] } = {},
  ) =>
    post(
      a2aUrl,
      {
        jsonrpc: '2.0',
        id: extra.id ?? 1,
        method: 'tasks/send',
        params: {
          id: taskId,
          metadata: { skill_id: skill, ...extra.metadata },
          message: { role: 'user', parts: extra.parts ?? [{ type: 'data', data: args }] },
        },
      },
      token === null ? {} : { authorization: `Bearer ${token}` },
    );
  const answer = async (res: Response) => ({
    status: res.status,
    type: res.headers.get('content-type'),
    connection: res.headers.get('connection'),
    body: JSON.parse(await res.text()) as unknown,
  });
  const rpcError = (id: unknown, code: number, message: string) => ({
    jsonrpc: '2.0',
    id,
    error: { code, message },
  });

  describe('POST /a2a tasks/send (world-spec §6.5)', () => {
    it('answers a completed task carrying the committed output bytes (§11 scenario 19)', async () => {
      const res = await send(READ, 't1', 'ailang-read');
      const output = canonicalBytes({
        ...READ_OUTPUT,
        world: { effects: [{ id: 'e1', status: 'ok', record: R1 }], plan: ref('f') },
      }).toString('utf8');
      const entry = h.world.committed.get('a2a:ep1:t1')!.reply.entryIndex;
      expect([res.status, res.headers.get('content-type'), await res.text()]).toEqual([
        200,
        'application/json',
        `{"jsonrpc":"2.0","id":1,"result":{"id":"t1","status":{"state":"completed"},` +
          `"artifacts":[{"parts":[{"type":"data","data":${output}}]}],` +
          `"metadata":{"invocation_id":"a2a:ep1:t1","world_ref":"${ref('a')}","entry_index":${entry}}}}`,
      ]);
      expect(h.world.callsOf('planner.invoke')).toEqual([
        {
          surface: 'a2a',
          session: expect.objectContaining({ episodeId: 'ep1' }),
          toolId: 'ailang-read',
          arguments: { path: 'hello.ail' },
          taskId: 't1',
        },
      ]);
      // The planner admits the skill itself: no registry read before the call (world-spec §6.5).
      expect(h.world.callsOf('planner.tools.list')).toEqual([]);
    });

    it('answers a resend byte for byte and the same id with other arguments -32602 (§4.6)', async () => {
      const first = await (await send(READ, 'resend-1', 'ailang-read')).text();
      const again = await (await send(READ, 'resend-1', 'ailang-read')).text();
      expect(again).toBe(first);
      expect(
        await answer(await send(READ, 'resend-1', 'ailang-read', { path: 'other.ail' })),
      ).toEqual({
        status: 200,
        type: 'application/json',
        connection: 'keep-alive',
        body: rpcError(1, -32602, 'task id already used in this session'),
      });
    });

    it('accepts /a2a/ as well (world-spec §5)', async () => {
      const res = await post(
        `${a2aUrl}/`,
        { jsonrpc: '2.0', id: 2, method: 'tasks/get', params: {} },
        { authorization: `Bearer ${READ}` },
      );
      expect((await answer(res)).body).toEqual(rpcError(2, -32601, 'method not found'));
    });

    const sessions: Array<[string, Record<string, string>, number, string]> = [
      ['absent', {}, -32001, MESSAGES.sessionAbsent],
      ['malformed', { authorization: 'Bearer xyz' }, -32600, MESSAGES.sessionMalformed],
      ['unknown', { authorization: `Bearer ${UNKNOWN}` }, -32001, 'unknown session credential'],
      ['revoked', { authorization: `Bearer ${REVOKED}` }, -32001, 'unknown session credential'],
      ['expired', { authorization: `Bearer ${EXPIRED}` }, -32001, 'session credential has expired'],
    ];
    it.each(sessions)(
      'refuses a session that is %s before reading the body, id null (§6.1)',
      async (_row, headers, code, message) => {
        const res = await post(a2aUrl, '{"jsonrpc":"2.0","id":9,"method":"tasks/send"', headers);
        expect(await answer(res)).toEqual({
          status: 200,
          type: 'application/json',
          connection: 'keep-alive',
          body: rpcError(null, code, message),
        });
        expect(h.world.callsOf('planner.tools.list')).toEqual([]);
      },
    );

    const envelope: Array<[string, unknown, unknown, number, string]> = [
      ['an undecodable body, id null', '{"jsonrpc":', null, -32600, 'invalid JSON-RPC request'],
      [
        'jsonrpc "1.0" (§11 scenario 20)',
        { jsonrpc: '1.0', id: 4, method: 'tasks/send', params: {} },
        4,
        -32600,
        'invalid JSON-RPC request',
      ],
      [
        'tasks/get (§11 scenario 20)',
        { jsonrpc: '2.0', id: 'q', method: 'tasks/get', params: { id: 't1' } },
        'q',
        -32601,
        'method not found',
      ],
      [
        'a task id with a slash',
        {
          jsonrpc: '2.0',
          id: 5,
          method: 'tasks/send',
          params: { id: 'a/b', metadata: { skill_id: 'ailang-read' } },
        },
        5,
        -32602,
        'invalid params',
      ],
    ];
    it.each(envelope)('answers %s over HTTP 200', async (_row, body, id, code, message) => {
      const res = await post(a2aUrl, body, { authorization: `Bearer ${READ}` });
      expect(await answer(res)).toEqual({
        status: 200,
        type: 'application/json',
        connection: 'keep-alive',
        body: rpcError(id, code, message),
      });
      expect(h.world.callsOf('planner.invoke')).toEqual([]);
    });

    const dispatch: Array<[string, () => Promise<Response>, number, string]> = [
      [
        'a skill the session does not see (§11 scenario 20)',
        () => send(READ, 'w1', 'ailang-write', { path: 'x', content: 'y' }),
        -32602,
        'not authorized',
      ],
      [
        'an unknown skill before judging two parts (§6.5 order)',
        () => send(READ, 'w2', 'nope', {}, { parts: [{}, {}] }),
        -32602,
        'not authorized',
      ],
      [
        'two parts (§11 scenario 20)',
        () =>
          send(
            READ,
            'p2',
            'ailang-read',
            {},
            {
              parts: [
                { type: 'data', data: { path: 'a' } },
                { type: 'data', data: { path: 'b' } },
              ],
            },
          ),
        -32602,
        'invalid params',
      ],
      [
        'a text part',
        () => send(READ, 'p3', 'ailang-read', {}, { parts: [{ type: 'text', text: 'read it' }] }),
        -32602,
        'invalid params',
      ],
      [
        'a transition_fn that is not a ref',
        () => send(READ, 'p4', 'ailang-read', {}, { metadata: { transition_fn: 'sha256:abc' } }),
        -32602,
        'invalid params',
      ],
      [
        'a transition_fn pinning another source',
        () => send(READ, 'p5', 'ailang-read', {}, { metadata: { transition_fn: ref('2') } }),
        -32602,
        'proposal does not match the registered transition',
      ],
    ];
    it.each(dispatch)('refuses %s and invokes nothing', async (_row, request, code, message) => {
      expect((await answer(await request())).body).toEqual(rpcError(1, code, message));
      expect(h.world.callsOf('planner.invoke')).toEqual([]);
    });

    it('invokes when transition_fn pins the registered source', async () => {
      const res = await send(
        READ,
        'pinned',
        'ailang-read',
        { path: 'a' },
        { metadata: { transition_fn: PIN } },
      );
      const body = (await answer(res)).body as { result: { status: unknown } };
      expect(body.result.status).toEqual({ state: 'completed' });
      expect(h.world.callsOf('planner.invoke')).toEqual([
        expect.objectContaining({ toolId: 'ailang-read', taskId: 'pinned', transitionFn: PIN }),
      ]);
      expect(h.world.callsOf('planner.tools.list')).toEqual([]);
    });

    const failures: Array<[string, string, number, string, string]> = [
      [
        'EffectsUnrecorded with every record ref (§4.5)',
        'unrecorded',
        -32603,
        `effects were requested but the invocation was not confirmed committed; effect records: ${R1} ${R2}`,
        `a2a refusal: tasks/send a2a:ep1:f-unrecorded: "ledger down records [${R1} ${R2}]"`,
      ],
      [
        'a first attempt known not to have committed',
        'not-committed',
        -32603,
        'invocation was not committed; send a new task id',
        'a2a refusal: tasks/send a2a:ep1:f-not-committed: "InvocationNotCommitted: invocation was not committed; send a new task id"',
      ],
      [
        'an unknown outcome',
        'uncertain',
        -32603,
        'invocation outcome is not confirmed; resend the same task id',
        'a2a refusal: tasks/send a2a:ep1:f-uncertain: "Uncertain: invocation outcome is not confirmed; resend the same task id"',
      ],
      [
        'an effect without a handler (R8)',
        'no-handler',
        -32603,
        'transition declares an effect this daemon has no handler for',
        'a2a refusal: tasks/send a2a:ep1:f-no-handler: "NoHandler: transition declares an effect this daemon has no handler for"',
      ],
      [
        'a lost lease, as not available',
        'lease-lost',
        -32603,
        NOT_AVAILABLE,
        'a2a refusal: tasks/send a2a:ep1:f-lease-lost: "LeaseLost: lease of episode \\"ep1\\" is not held with fence 4"',
      ],
      [
        'a planner nobody answers, as not available',
        'unavailable',
        -32603,
        NOT_AVAILABLE,
        'a2a refusal: tasks/send a2a:ep1:f-unavailable: "Unavailable: no service answers planner.invoke"',
      ],
      [
        'an untyped planner failure, its text kept out of the answer',
        'crash',
        -32603,
        NOT_AVAILABLE,
        'a2a refusal: tasks/send a2a:ep1:f-crash: "Internal: internal store failure"',
      ],
    ];
    it.each(failures)(
      'answers %s with -32603 and logs the cause',
      async (_row, skill, code, message, line) => {
        const res = await send(FULL, `f-${skill}`, skill, {});
        expect(await answer(res)).toEqual({
          status: 200,
          type: 'application/json',
          connection: 'keep-alive',
          body: rpcError(1, code, message),
        });
        expect(h.log.lines.map((l) => l.message)).toEqual([line]);
      },
    );

    it('answers the service deadline with Connection: close (§6.5)', async () => {
      const res = await send(FULL, 'd1', 'deadline', {});
      expect(await answer(res)).toEqual({
        status: 200,
        type: 'application/json',
        connection: 'close',
        body: rpcError(1, -32603, 'invocation exceeded its deadline'),
      });
    });

    // The planner may still run the call and commit it: only a resend of the task id can tell.
    it('answers a planner that never replies "not confirmed; resend the same task id" and Connection: close', async () => {
      const res = await send(FULL, 'h1', 'hang', {});
      expect(await answer(res)).toEqual({
        status: 200,
        type: 'application/json',
        connection: 'close',
        body: rpcError(1, -32603, 'invocation outcome is not confirmed; resend the same task id'),
      });
    });

    it('answers a malformed message whose registry read fails as not available and logs why', async () => {
      h.world.toolsListError = () => new ServiceUnavailableError('registry gone');
      const res = await send(READ, 'r1', 'ailang-read', {}, { parts: [{}, {}] });
      expect((await answer(res)).body).toEqual(rpcError(1, -32603, NOT_AVAILABLE));
      expect(h.log.lines.map((l) => l.message)).toEqual([
        'a2a refusal: tasks/send a2a:ep1:r1: "Unavailable: the registry snapshot failed: registry gone"',
      ]);
    });

    it('refuses a body over 1 MiB with -32600, id null, and closes the connection (§6.5)', async () => {
      const big = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tasks/send',
        params: { id: 'big', metadata: { skill_id: 'ailang-read' }, pad: 'x'.repeat(1024 * 1024) },
      });
      expect(await answer(await post(a2aUrl, big, { authorization: `Bearer ${READ}` }))).toEqual({
        status: 200,
        type: 'application/json',
        connection: 'close',
        body: rpcError(null, -32600, 'invalid JSON-RPC request'),
      });
    });

    it('answers GET /a2a 405 after the session check', async () => {
      const res = await fetch(a2aUrl, { headers: { authorization: `Bearer ${READ}` } });
      expect([res.status, res.headers.get('allow'), await res.json()]).toEqual([
        405,
        'POST',
        rpcError(null, -32600, 'invalid JSON-RPC request'),
      ]);
    });
  });

  describe('the current protocol through @a2a-js/sdk (A2A 1.0 and 0.3)', () => {
    const withToken =
      (token: string): typeof fetch =>
      (input, init) => {
        const headers = new Headers(init?.headers);
        headers.set('authorization', `Bearer ${token}`);
        return fetch(input, { ...init, headers });
      };
    const client10 = (token: string): Promise<Client> => {
      const fetchImpl = withToken(token);
      return new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
          transports: [new JsonRpcTransportFactory({ fetchImpl })],
          cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
        }),
      ).createFromUrl(h.gateway.url);
    };
    /** A 0.3 client: the SDK's legacy JSON-RPC transport, chosen from the card's 0.3 interface. */
    const client03 = async (token: string): Promise<Client> => {
      const fetchImpl = withToken(token);
      const resolver = new DefaultAgentCardResolver({ fetchImpl });
      const raw = await (await fetchImpl(`${h.gateway.url}/.well-known/agent-card.json`)).json();
      const card: AgentCard = resolver.normalizeAgentCard(raw);
      return new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
          transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat: { enabled: true } })],
        }),
      ).createFromAgentCard({
        ...card,
        supportedInterfaces: card.supportedInterfaces.filter((i) => i.protocolVersion === '0.3'),
      });
    };
    const message = (messageId: string, args: unknown, skill = 'ailang-read') => ({
      message: {
        messageId,
        contextId: '',
        taskId: '',
        role: 1,
        parts: [
          {
            content: { $case: 'data' as const, value: args },
            metadata: undefined,
            filename: '',
            mediaType: '',
          },
        ],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      },
      metadata: { skill_id: skill },
      tenant: '',
      configuration: undefined,
    });
    const outputOf = (messageId: string) => h.world.committed.get(`a2a:ep1:${messageId}`)!.reply;
    const failure = (err: unknown) => ({
      code: (err as { envelopeCode?: number }).envelopeCode,
      message: (err as Error).message,
    });

    it.each([
      ['1.0', client10],
      ['0.3', client03],
    ])(
      '%s: SendMessage is one tool call whose committed output is the completed task',
      async (version, make) => {
        const client = await make(READ);
        expect(client.protocolVersion).toBe(version);
        const id = `sdk-${version}`;
        const task = await client.sendMessage(message(id, { path: 'hello.ail' }));
        const reply = outputOf(id);
        expect(task).toEqual({
          id,
          contextId: 'ep1',
          status: { state: 3, message: undefined, timestamp: undefined },
          artifacts: [
            {
              artifactId: 'output',
              name: '',
              description: '',
              parts: [
                {
                  content: { $case: 'data', value: reply.output },
                  metadata: undefined,
                  filename: '',
                  mediaType: version === '1.0' ? 'application/json' : '',
                },
              ],
              metadata: undefined,
              extensions: [],
            },
          ],
          history: [],
          metadata: {
            invocation_id: `a2a:ep1:${id}`,
            world_ref: ref('a'),
            entry_index: reply.entryIndex,
          },
        });
        expect(h.world.callsOf('planner.invoke')).toEqual([
          {
            surface: 'a2a',
            session: expect.objectContaining({ episodeId: 'ep1' }),
            toolId: 'ailang-read',
            arguments: { path: 'hello.ail' },
            taskId: id,
          },
        ]);
        expect(await client.getTask({ tenant: '', id })).toEqual(task);
        expect(await client.sendMessage(message(id, { path: 'hello.ail' }))).toEqual(task);
        expect(h.world.callsOf('ledger.invocation.get')).toEqual([
          { invocationId: `a2a:ep1:${id}` },
        ]);
      },
    );

    it.each([
      ['1.0', client10],
      ['0.3', client03],
    ])('%s: refusals carry the §6.5 codes and texts', async (_version, make) => {
      const client = await make(READ);
      const refusals = await Promise.all([
        client.sendMessage(message('x1', { path: 'a' }, 'ailang-write')).catch(failure),
        client.sendMessage(message('has space', { path: 'a' })).catch(failure),
        client.sendMessage(message('x2', ['not', 'an', 'object'])).catch(failure),
        client.getTask({ tenant: '', id: 'never-sent' }).catch(failure),
      ]);
      expect(refusals).toEqual([
        { code: -32602, message: 'not authorized' },
        { code: -32602, message: 'invalid params' },
        { code: -32602, message: 'invalid params' },
        { code: -32001, message: 'task not found' },
      ]);
      expect(h.world.callsOf('planner.invoke')).toEqual([]);
    });

    it('1.0: GetTask reads a task still in flight as WORKING and an ended one as FAILED', async () => {
      h.world.states.set('a2a:ep1:busy', { state: 'in-flight' });
      h.world.states.set('a2a:ep1:gone', { state: 'ended', reason: 'abandoned' });
      const client = await client10(READ);
      const busy = await client.getTask({ tenant: '', id: 'busy' });
      const gone = await client.getTask({ tenant: '', id: 'gone' });
      expect([busy.status?.state, busy.artifacts]).toEqual([2, []]);
      expect([gone.status?.state, gone.status?.message?.parts[0]?.content]).toEqual([
        4,
        { $case: 'text', value: 'invocation was not committed; send a new task id' },
      ]);
    });

    it('1.0: a ledger that does not answer GetTask is not available, logged', async () => {
      h.world.invocationGetError = () => new ServiceUnavailableError('ledger gone');
      const client = await client10(READ);
      expect(await client.getTask({ tenant: '', id: 't9' }).catch(failure)).toEqual({
        code: -32603,
        message: NOT_AVAILABLE,
      });
      expect(h.log.lines.map((l) => l.message)).toEqual([
        'a2a refusal: GetTask a2a:ep1:t9: "Unavailable: ledger gone"',
      ]);
    });

    it('1.0: a planner that never replies: "not confirmed; resend the same task id"', async () => {
      const client = await client10(FULL);
      expect(await client.sendMessage(message('h2', {}, 'hang')).catch(failure)).toEqual({
        code: -32603,
        message: 'invocation outcome is not confirmed; resend the same task id',
      });
    });

    it('1.0: EffectsUnrecorded comes back with its record list', async () => {
      const client = await client10(FULL);
      expect(await client.sendMessage(message('u1', {}, 'unrecorded')).catch(failure)).toEqual({
        code: -32603,
        message: `effects were requested but the invocation was not confirmed committed; effect records: ${R1} ${R2}`,
      });
    });

    const jsonrpcUrl = () => `${h.gateway.url}/a2a/jsonrpc`;
    const v1 = { 'a2a-version': '1.0' };

    const denials: Array<[string, Record<string, string>, number, number, string]> = [
      ['absent', {}, 401, -32000, MESSAGES.sessionAbsent],
      ['malformed', { authorization: 'Basic abc' }, 400, -32600, MESSAGES.sessionMalformed],
      [
        'unknown',
        { authorization: `Bearer ${UNKNOWN}` },
        401,
        -32000,
        'unknown session credential',
      ],
      [
        'expired',
        { authorization: `Bearer ${EXPIRED}` },
        401,
        -32000,
        'session credential has expired',
      ],
    ];
    it.each(denials)(
      'answers a session that is %s with an HTTP status, so no client reads TaskNotFound',
      async (_row, headers, status, code, text) => {
        const res = await post(
          jsonrpcUrl(),
          { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } },
          {
            ...v1,
            ...headers,
          },
        );
        expect([res.status, res.headers.get('www-authenticate'), await res.json()]).toEqual([
          status,
          status === 401 ? 'Bearer' : null,
          rpcError(null, code, text),
        ]);
      },
    );

    it('surfaces a bad credential to @a2a-js/sdk as an authentication failure, not TaskNotFound', async () => {
      const card: AgentCard = new DefaultAgentCardResolver({
        fetchImpl: withToken(READ),
      }).normalizeAgentCard(
        await (await withToken(READ)(`${h.gateway.url}/.well-known/agent-card.json`)).json(),
      );
      // The SDK's authentication hook: called with every answer, asked whether to retry.
      const seen: number[] = [];
      const fetchImpl = createAuthenticatingFetchWithRetry(withToken(UNKNOWN), {
        headers: async () => ({}),
        shouldRetryWithHeaders: async (_init, response) => {
          seen.push(response.status);
          return undefined;
        },
      });
      const client = await new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
          transports: [new JsonRpcTransportFactory({ fetchImpl })],
        }),
      ).createFromAgentCard(card);
      const err = await client.sendMessage(message('auth-1', {})).catch((e: unknown) => e);
      expect([
        (err as Error).name,
        (err as { envelopeCode?: number }).envelopeCode,
        (err as Error).message,
        seen,
      ]).toEqual(['JsonRpcTransportError', -32000, 'unknown session credential', [401]]);
      expect(h.world.callsOf('planner.invoke')).toEqual([]);
    });

    const raw: Array<[string, Record<string, string>, unknown, unknown]> = [
      [
        'SendMessage without A2A-Version is a 0.3 call: method not found',
        {},
        { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {} },
        rpcError(1, -32601, 'method not found'),
      ],
      [
        'an A2A-Version the card does not list',
        { 'a2a-version': '2.0' },
        { jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: 'x' } },
        rpcError(2, -32009, 'A2A-Version not supported: this agent serves 1.0 and 0.3'),
      ],
      [
        'a body that is not JSON',
        v1,
        '{"jsonrpc":',
        rpcError(null, -32700, 'parse error: the request body is not JSON'),
      ],
      [
        'a 0.3 part of an unknown kind, without quoting it',
        {},
        {
          jsonrpc: '2.0',
          id: 3,
          method: 'message/send',
          params: {
            message: {
              kind: 'message',
              messageId: 'k1',
              role: 'user',
              parts: [{ kind: '<script>' }],
            },
            metadata: { skill_id: 'ailang-read' },
          },
        },
        rpcError(3, -32602, 'invalid params'),
      ],
      [
        'streaming, which the card does not offer',
        v1,
        {
          jsonrpc: '2.0',
          id: 4,
          method: 'SendStreamingMessage',
          params: { message: { messageId: 's1' } },
        },
        rpcError(4, -32004, 'operation not supported'),
      ],
      [
        'a follow-up to a task that does not exist',
        v1,
        {
          jsonrpc: '2.0',
          id: 5,
          method: 'SendMessage',
          params: {
            message: { messageId: 'f1', taskId: 'nope', role: 'ROLE_USER', parts: [{ data: {} }] },
            metadata: { skill_id: 'ailang-read' },
          },
        },
        rpcError(5, -32001, 'task not found'),
      ],
      [
        'a context other than the episode',
        v1,
        {
          jsonrpc: '2.0',
          id: 6,
          method: 'SendMessage',
          params: {
            message: {
              messageId: 'c1',
              contextId: 'elsewhere',
              role: 'ROLE_USER',
              parts: [{ data: {} }],
            },
            metadata: { skill_id: 'ailang-read' },
          },
        },
        rpcError(6, -32602, 'invalid params'),
      ],
      [
        'a skill named differently by the request and the message',
        v1,
        {
          jsonrpc: '2.0',
          id: 7,
          method: 'SendMessage',
          params: {
            message: {
              messageId: 'c2',
              role: 'ROLE_USER',
              parts: [{ data: {} }],
              metadata: { skill_id: 'ailang-write' },
            },
            metadata: { skill_id: 'ailang-read' },
          },
        },
        rpcError(7, -32602, 'invalid params'),
      ],
      [
        'CancelTask of a task that does not exist',
        v1,
        { jsonrpc: '2.0', id: 8, method: 'CancelTask', params: { id: 'nope' } },
        rpcError(8, -32001, 'task not found'),
      ],
    ];
    it.each(raw)('answers %s', async (_row, headers, body, expected) => {
      const res = await post(jsonrpcUrl(), body, { authorization: `Bearer ${READ}`, ...headers });
      expect([res.status, res.headers.get('content-type'), await res.json()]).toEqual([
        200,
        'application/json',
        expected,
      ]);
      expect(h.world.callsOf('planner.invoke')).toEqual([]);
    });

    it('takes the skill from the message metadata when the request carries none', async () => {
      const res = await post(
        jsonrpcUrl(),
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'SendMessage',
          params: {
            message: {
              messageId: 'inner-1',
              role: 'ROLE_USER',
              parts: [{ data: { path: 'a' } }],
              metadata: { skill_id: 'ailang-read' },
            },
          },
        },
        { authorization: `Bearer ${READ}`, ...v1 },
      );
      const body = (await res.json()) as { result: { task: { status: unknown } } };
      expect(body.result.task.status).toEqual({ state: 'TASK_STATE_COMPLETED' });
    });

    it('refuses a body over 1 MiB with 413 and a JSON-RPC error, never HTML', async () => {
      const res = await post(jsonrpcUrl(), 'x'.repeat(1024 * 1024 + 1), {
        authorization: `Bearer ${READ}`,
        ...v1,
      });
      expect([res.status, res.headers.get('connection'), await res.json()]).toEqual([
        413,
        'close',
        rpcError(null, -32600, 'invalid JSON-RPC request'),
      ]);
    });
  });

  describe('the agent cards (world-spec §5.13)', () => {
    const card = (path: string, headers: Record<string, string>) =>
      fetch(`${h.gateway.url}/.well-known/${path}`, { headers });

    it.each([
      ['agent-card.json', { 'a2a-version': '1.0' }],
      ['agent-card.json', {}],
      ['agent.json', {}],
    ])('%s %j lists exactly the session tools, uncached', async (path, headers) => {
      for (const [token, ids] of [
        [READ, ['ailang-read']],
        [FULL, REGISTRY.map((t) => t.id)],
      ] as const) {
        const res = await card(path, { authorization: `Bearer ${token}`, ...headers });
        const body = (await res.json()) as { skills: Array<{ id: string; name: string }> };
        expect([res.status, res.headers.get('cache-control')]).toEqual([200, 'no-store']);
        expect(body.skills.map((s) => [s.id, s.name])).toEqual(
          ids.map((id) => [id, `Title of ${id}`]),
        );
      }
    });

    it('puts the request origin in the reference card url (§5.13)', async () => {
      const body = (await (
        await card('agent.json', { authorization: `Bearer ${READ}` })
      ).json()) as {
        url: string;
      };
      expect(body.url).toBe(h.gateway.url);
    });

    const denials: Array<[string, Record<string, string>, number, string, string]> = [
      ['absent', {}, 401, 'SessionAbsent', MESSAGES.sessionAbsent],
      [
        'malformed',
        { authorization: 'Bearer xyz' },
        400,
        'InvalidSession',
        MESSAGES.sessionMalformed,
      ],
      [
        'unknown',
        { authorization: `Bearer ${UNKNOWN}` },
        401,
        'SessionUnknown',
        'unknown session credential',
      ],
      [
        'expired',
        { authorization: `Bearer ${EXPIRED}` },
        401,
        'SessionExpired',
        'session credential has expired',
      ],
    ];
    it.each(denials)(
      'refuses a session that is %s with the REST envelope on both paths',
      async (_row, headers, status, errorClass, message) => {
        for (const path of ['agent-card.json', 'agent.json']) {
          const res = await card(path, headers);
          expect([res.status, res.headers.get('cache-control'), await res.json()]).toEqual([
            status,
            'no-store',
            { error: { class: errorClass, message } },
          ]);
        }
        expect(h.world.callsOf('planner.tools.list')).toEqual([]);
      },
    );

    it.each([
      [
        'a failed registry read',
        () => new ServiceUnavailableError('down'),
        503,
        'ProjectionUnavailable',
        'the projection read failed; retry the request',
      ],
      [
        'a registry read past its deadline',
        () => new TransportTimeoutError('slow'),
        504,
        'ProjectionDeadlineExceeded',
        'the projection read exceeded its bounded deadline',
      ],
    ])(
      'answers %s with the §5.13 projection error',
      async (_row, error, status, errorClass, message) => {
        h.world.toolsListError = error;
        const res = await card('agent.json', { authorization: `Bearer ${READ}` });
        expect([res.status, await res.json()]).toEqual([
          status,
          { error: { class: errorClass, message } },
        ]);
      },
    );
  });
});
