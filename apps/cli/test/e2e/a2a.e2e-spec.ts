/**
 * World-spec §11 scenarios 19 and 20, the agent cards (§5.13 and its additional candidates), the
 * current protocol through the official `@a2a-js/sdk` clients (A2A 1.0 and its 0.3 path), and
 * EffectsUnrecorded on A2A (§4.5), against a booted World in both run modes, over HTTP.
 *
 * Two rows of the reference's scenario 20 do not apply to this edition and are not tested:
 * "daemon started without --ailang-bin → -32603 not available" (the AILANG toolchain is
 * embedded, so the coordinator is always present: DESIGN.md §7.8) and "before genesis → -32603
 * no world is selected" (genesis is created automatically on first start: DESIGN.md §7.3).
 */
import { AgentCard, type SendMessageRequest } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  type Client,
} from '@a2a-js/sdk/client';
import type { ReplyOf } from '@world/contracts';
import {
  FULL_GRANTS,
  HELLO_AIL,
  MODES,
  startTestSystem,
  type TestSystem,
} from '../support/system.js';

/** What the tests read of a card or of its REST error envelope. */
interface CardBody {
  skills: Array<{ id: string; name: string }>;
  supportedInterfaces?: unknown;
  url?: string;
  capabilities?: unknown;
  error?: unknown;
}

const READ_5 = [{ effect: 'Workspace.Read', scope: 'worktree', budget: 5 }];
const RECORD = /^sha256:[0-9a-f]{64}$/;

describe.each(MODES)('A2A end to end (%s mode)', (mode) => {
  let w: TestSystem;
  let full: string;
  let readOnly: string;

  beforeAll(async () => {
    w = await startTestSystem(mode);
    await w.episode('ep1', { 'hello.ail': HELLO_AIL });
    full = await w.session('ep1', FULL_GRANTS);
    readOnly = await w.session('ep1', READ_5);
  });
  afterAll(async () => {
    await w?.close();
  });

  const logLength = async () => {
    const head = await w.get('/v1/head');
    return (await w.get(`/v1/worlds/${head.text}`)).json.revision + 1;
  };
  const post = async (path: string, token: string | null, body: unknown) => {
    const res = await fetch(`${w.url}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
  };
  const tasksSend = (
    token: string | null,
    taskId: string,
    skill: string,
    parts: unknown[] = [{ type: 'data', data: { path: 'hello.ail' } }],
  ) =>
    post('/a2a', token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tasks/send',
      params: { id: taskId, metadata: { skill_id: skill }, message: { role: 'user', parts } },
    });
  const rpcError = (id: unknown, code: number, message: string) =>
    JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } });
  const intents = async (invocationId: string) =>
    (
      await w.system.rpc.request(
        'broker.effect.byInvocation',
        { invocationId },
        { timeoutMs: 10_000 },
      )
    ).items;

  it('scenario 19: tasks/send is idempotent on its task id', async () => {
    const before = await logLength();
    const first = await tasksSend(full, 't1', 'ailang-read');
    expect([first.status, first.type]).toEqual([200, 'application/json']);
    const answer = JSON.parse(first.text);
    const k = before;
    expect(answer).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        id: 't1',
        status: { state: 'completed' },
        artifacts: [
          {
            parts: [
              {
                type: 'data',
                data: {
                  content: HELLO_AIL,
                  ok: true,
                  tool: expect.stringMatching(RECORD),
                  policy_digest: expect.stringMatching(/^[0-9a-f]{64}$/),
                  world: {
                    effects: [{ id: 'e1', status: 'ok', record: expect.stringMatching(RECORD) }],
                    plan: expect.stringMatching(RECORD),
                  },
                },
              },
            ],
          },
        ],
        metadata: {
          invocation_id: 'a2a:ep1:t1',
          world_ref: (await w.get('/v1/head')).text,
          entry_index: k,
        },
      },
    });
    expect(await logLength()).toBe(before + 1);
    expect((await w.get(`/v1/log/${k}`)).json.header.writtenBy).toBe('coordinator:a2a');

    const resend = await tasksSend(full, 't1', 'ailang-read');
    expect(resend).toEqual(first);
    expect(await logLength()).toBe(before + 1);
    expect(await intents('a2a:ep1:t1')).toHaveLength(1);

    const other = await tasksSend(full, 't1', 'ailang-read', [
      { type: 'data', data: { path: 'other.ail' } },
    ]);
    expect(other).toEqual({
      status: 200,
      type: 'application/json',
      text: rpcError(1, -32602, 'task id already used in this session'),
    });
    expect(await logLength()).toBe(before + 1);
  });

  it('scenario 20: envelope errors are HTTP 200 application/json and write nothing', async () => {
    const before = await logLength();
    const rows: Array<[Promise<{ status: number; type: string | null; text: string }>, string]> = [
      [
        post('/a2a', full, { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 't1' } }),
        rpcError(1, -32601, 'method not found'),
      ],
      [
        post('/a2a', full, { jsonrpc: '1.0', id: 2, method: 'tasks/send', params: {} }),
        rpcError(2, -32600, 'invalid JSON-RPC request'),
      ],
      [
        tasksSend(readOnly, 's20-write', 'ailang-write', [
          { type: 'data', data: { path: 'x.ail', content: 'x' } },
        ]),
        rpcError(1, -32602, 'not authorized'),
      ],
      [
        tasksSend(full, 's20-parts', 'ailang-read', [
          { type: 'data', data: { path: 'hello.ail' } },
          { type: 'data', data: { path: 'hello.ail' } },
        ]),
        rpcError(1, -32602, 'invalid params'),
      ],
      [
        tasksSend(null, 's20-anon', 'ailang-read'),
        rpcError(
          null,
          -32001,
          'session credential is absent: send Authorization: Bearer <session-credential>',
        ),
      ],
    ];
    for (const [answer, text] of rows) {
      expect(await answer).toEqual({ status: 200, type: 'application/json', text });
    }
    expect(await logLength()).toBe(before);
  });

  describe('the agent cards', () => {
    const card = async (
      path: string,
      token: string | null,
      headers: Record<string, string> = {},
    ) => {
      const res = await fetch(`${w.url}/.well-known/${path}`, {
        headers: { ...(token === null ? {} : { authorization: `Bearer ${token}` }), ...headers },
      });
      return {
        status: res.status,
        cache: res.headers.get('cache-control'),
        body: (await res.json()) as CardBody,
      };
    };
    const toolNames = async (token: string) =>
      ((await w.mcp(token, 'tools/list', {})).body!.result!.tools as Array<{ name: string }>).map(
        (t) => t.name,
      );

    it.each([
      ['agent-card.json', { 'a2a-version': '1.0' }],
      ['agent-card.json', {}],
      ['agent.json', {}],
    ])('%s %j: skills are exactly the session tools, not cached', async (path, headers) => {
      for (const token of [readOnly, full]) {
        const answer = await card(path, token, headers);
        expect([answer.status, answer.cache]).toEqual([200, 'no-store']);
        expect(answer.body.skills.map((s) => s.id)).toEqual(await toolNames(token));
      }
      expect((await card(path, readOnly, headers)).body.skills).toEqual([
        expect.objectContaining({ id: 'ailang-read', name: 'Read (sandboxed)' }),
      ]);
    });

    it('the 1.0 card lists the JSON-RPC endpoint at 1.0 and 0.3; the reference card its origin', async () => {
      const current = await card('agent-card.json', full, { 'a2a-version': '1.0' });
      expect(current.body.supportedInterfaces).toEqual([
        { url: `${w.url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: `${w.url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      ]);
      const reference = await card('agent.json', full);
      expect(reference.body.url).toBe(w.url);
      expect(reference.body.capabilities).toEqual({
        streaming: false,
        pushNotifications: false,
        stateTransitionHistory: false,
      });
    });

    it.each(['agent-card.json', 'agent.json'])(
      '%s refuses without a session (401) and with a malformed one (400), REST envelope',
      async (path) => {
        expect(await card(path, null)).toEqual({
          status: 401,
          cache: 'no-store',
          body: {
            error: {
              class: 'SessionAbsent',
              message:
                'session credential is absent: send Authorization: Bearer <session-credential>',
            },
          },
        });
        expect(await card(path, 'xyz')).toEqual({
          status: 400,
          cache: 'no-store',
          body: {
            error: {
              class: 'InvalidSession',
              message: 'malformed Authorization header: expected Bearer <64-hex-credential>',
            },
          },
        });
        expect((await card(path, 'b'.repeat(64))).body).toEqual({
          error: { class: 'SessionUnknown', message: 'unknown session credential' },
        });
      },
    );
  });

  describe('the current protocol through @a2a-js/sdk', () => {
    const withToken =
      (token: string): typeof fetch =>
      (input, init) => {
        const headers = new Headers(init?.headers);
        headers.set('authorization', `Bearer ${token}`);
        return fetch(input, { ...init, headers });
      };
    /** The SDK's 1.0 client, from the card at /.well-known/agent-card.json. */
    const client10 = (token: string): Promise<Client> => {
      const fetchImpl = withToken(token);
      return new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
          transports: [new JsonRpcTransportFactory({ fetchImpl })],
          cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
        }),
      ).createFromUrl(w.url);
    };
    /** The SDK's v0.3 transport, chosen from the card's 0.3 interface (no A2A-Version header). */
    const client03 = async (token: string): Promise<Client> => {
      const fetchImpl = withToken(token);
      const raw = await (await fetchImpl(`${w.url}/.well-known/agent-card.json`)).json();
      const card: AgentCard = new DefaultAgentCardResolver({ fetchImpl }).normalizeAgentCard(raw);
      return new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
          transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat: { enabled: true } })],
        }),
      ).createFromAgentCard({
        ...card,
        supportedInterfaces: card.supportedInterfaces.filter((i) => i.protocolVersion === '0.3'),
      });
    };
    const sendRequest = (
      messageId: string,
      args: unknown,
      skill = 'ailang-read',
    ): SendMessageRequest => ({
      tenant: '',
      message: {
        messageId,
        contextId: '',
        taskId: '',
        role: 1,
        parts: [
          {
            content: { $case: 'data', value: args },
            metadata: undefined,
            filename: '',
            mediaType: '',
          },
        ],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      },
      configuration: undefined,
      metadata: { skill_id: skill },
    });

    it.each([
      ['1.0', client10],
      ['0.3', client03],
    ])(
      '%s: SendMessage then GetTask return the committed task; a resent messageId adds no entry',
      async (version, make) => {
        const client = await make(full);
        expect(client.protocolVersion).toBe(version);
        const messageId = `sdk-${version.replace('.', '-')}`;
        const before = await logLength();
        const task = await client.sendMessage(sendRequest(messageId, { path: 'hello.ail' }));
        expect(await logLength()).toBe(before + 1);
        const output = (
          task as { artifacts: Array<{ parts: Array<{ content: { value: unknown } }> }> }
        ).artifacts[0]!.parts[0]!.content.value;
        expect(task).toMatchObject({
          id: messageId,
          contextId: 'ep1',
          status: { state: 3 },
          metadata: {
            invocation_id: `a2a:ep1:${messageId}`,
            world_ref: (await w.get('/v1/head')).text,
            entry_index: before,
          },
        });
        expect(output).toMatchObject({ content: HELLO_AIL, ok: true });
        // The artifact is the committed output object: the same bytes the log's entry names.
        const entry = (await w.get(`/v1/log/${before}`)).json;
        const record = await w.payload(entry.transitionRef, full);
        expect(await w.payload(record.output, full)).toEqual(output);
        expect(record.invocationId).toBe(`a2a:ep1:${messageId}`);

        expect(await client.getTask({ tenant: '', id: messageId })).toEqual(task);
        expect(await client.sendMessage(sendRequest(messageId, { path: 'hello.ail' }))).toEqual(
          task,
        );
        expect(await logLength()).toBe(before + 1);
        expect(await intents(`a2a:ep1:${messageId}`)).toHaveLength(1);
        const refused = await client
          .sendMessage(sendRequest(messageId, { path: 'other.ail' }))
          .catch((err: { envelopeCode: number; message: string }) => [
            err.envelopeCode,
            err.message,
          ]);
        expect(refused).toEqual([-32602, 'task id already used in this session']);
      },
    );

    it('1.0: GetTask of a task id never sent is TaskNotFound', async () => {
      const client = await client10(full);
      const refused = await client
        .getTask({ tenant: '', id: 'never-sent' })
        .catch((err: { envelopeCode: number; message: string }) => [err.envelopeCode, err.message]);
      expect(refused).toEqual([-32001, 'task not found']);
    });
  });

  describe('EffectsUnrecorded on A2A (world-spec §4.5)', () => {
    // An honest fault: the database itself refuses the ledger's log entry, after the broker ran
    // the effect and recorded it. No mock of Postgres or NATS; the trigger is dropped afterwards.
    const sql = (text: string) =>
      (
        w.system.database.db as unknown as { $client: { query(text: string): Promise<unknown> } }
      ).$client.query(text);

    it('answers -32603 listing the record, commits nothing, and a resend of the id answers the same (never a new task id)', async () => {
      await sql(
        `CREATE FUNCTION public.e2e_refuse_entry() RETURNS trigger LANGUAGE plpgsql AS $$ ` +
          `BEGIN RAISE EXCEPTION 'e2e fault: the log refuses entries'; END $$`,
      );
      await sql(
        'CREATE TRIGGER e2e_refuse_entry BEFORE INSERT ON ledger.log_entries ' +
          'FOR EACH ROW EXECUTE FUNCTION public.e2e_refuse_entry()',
      );
      const before = await logLength();
      let answer: { status: number; type: string | null; text: string };
      try {
        answer = await tasksSend(full, 'unrecorded-1', 'ailang-write', [
          { type: 'data', data: { path: 'unrecorded.txt', content: 'ran once\n' } },
        ]);
      } finally {
        await sql('DROP TRIGGER e2e_refuse_entry ON ledger.log_entries');
        await sql('DROP FUNCTION public.e2e_refuse_entry()');
      }
      const items: ReplyOf<'broker.effect.byInvocation'>['items'] =
        await intents('a2a:ep1:unrecorded-1');
      expect(items).toEqual([
        expect.objectContaining({
          effect: 'Workspace.Write',
          status: 'succeeded',
          recordRef: expect.stringMatching(RECORD),
        }),
      ]);
      const recordRef = items[0]!.recordRef!;
      expect(answer).toEqual({
        status: 200,
        type: 'application/json',
        text: rpcError(
          1,
          -32603,
          `effects were requested but the invocation was not confirmed committed; effect records: ${recordRef}`,
        ),
      });
      expect(await logLength()).toBe(before);
      // The record resolves through the broker although no entry names it (DESIGN.md §3).
      expect(await w.payload(recordRef, full)).toMatchObject({
        effect: 'Workspace.Write',
        allowed: true,
      });

      const resend = await tasksSend(full, 'unrecorded-1', 'ailang-write', [
        { type: 'data', data: { path: 'unrecorded.txt', content: 'ran once\n' } },
      ]);
      expect(resend.text).toBe(
        rpcError(
          1,
          -32603,
          `effects were requested but the invocation was not confirmed committed; effect records: ${recordRef}`,
        ),
      );
      expect(await intents('a2a:ep1:unrecorded-1')).toHaveLength(1);
      expect(await logLength()).toBe(before);
    });
  });
});
