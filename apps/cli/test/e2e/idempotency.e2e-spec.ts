/**
 * Exactly-once retries under concurrency (world-spec §4.6; DESIGN.md §6, §7.4): 20 resends of
 * one task id sent at once — reference `tasks/send`, A2A 1.0 `SendMessage` through the SDK
 * client, and MCP `tools/call` with `_meta["world/taskId"]` — run the tool once (one broker
 * intent for the invocation), commit one log entry, and every answer is the committed result,
 * the in-flight refusal of a resend that found no effect intent yet (-32602 `task id already used
 * in this session`), or, for one that found the intent while the first commit was pending,
 * -32603 `invocation outcome is not confirmed; resend the same task id` (world-internals §5.5,
 * §12 #24) — the same on both surfaces, in both run modes.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TaskState, type SendMessageRequest } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { FULL_GRANTS, MODES, startTestSystem, type TestSystem } from '../support/system.js';

const BURST = 20;
const IN_FLIGHT_A2A = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  error: { code: -32602, message: 'task id already used in this session' },
});
const UNCERTAIN = 'invocation outcome is not confirmed; resend the same task id';
const UNCERTAIN_A2A = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  error: { code: -32603, message: UNCERTAIN },
});
/** MCP's answer (a protocol error from the SDK, so in an SSE event), parsed. */
const IN_FLIGHT_MCP = {
  jsonrpc: '2.0',
  id: 1,
  error: { code: -32602, message: 'task id already used in this session' },
};
const UNCERTAIN_MCP = { jsonrpc: '2.0', id: 1, error: { code: -32603, message: UNCERTAIN } };

describe.each(MODES)('exactly-once retries of one task id (%s mode)', (mode) => {
  let w: TestSystem;
  let token: string;
  let worktree: string;

  beforeAll(async () => {
    w = await startTestSystem(mode);
    worktree = await w.episode('ep1', {});
    token = await w.session('ep1', FULL_GRANTS);
  });
  afterAll(async () => {
    await w?.close();
  });

  const logLength = async () => {
    const head = await w.get('/v1/head');
    return (await w.get(`/v1/worlds/${head.text}`)).json.revision + 1;
  };
  const intents = async (invocationId: string) =>
    (
      await w.system.rpc.request(
        'broker.effect.byInvocation',
        { invocationId },
        { timeoutMs: 10_000 },
      )
    ).items;
  /** The invocation record the log entry at `index` names. */
  const recordAt = async (index: number) =>
    w.payload((await w.get(`/v1/log/${index}`)).json.transitionRef, token);

  it('tasks/send: 20 concurrent resends run the tool once and answer the committed result', async () => {
    const before = await logLength();
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tasks/send',
      params: {
        id: 'burst-a2a',
        metadata: { skill_id: 'ailang-write' },
        message: {
          role: 'user',
          parts: [{ type: 'data', data: { path: 'a2a.txt', content: 'once\n' } }],
        },
      },
    });
    const send = async () => {
      const res = await fetch(`${w.url}/a2a`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body,
      });
      return res.text();
    };
    const answers = await Promise.all(Array.from({ length: BURST }, send));
    const final = await send();
    expect(JSON.parse(final).result.metadata).toEqual({
      invocation_id: 'a2a:ep1:burst-a2a',
      world_ref: expect.stringMatching(/^sha256:/),
      entry_index: before,
    });
    expect(
      answers.filter((a) => a !== final && a !== IN_FLIGHT_A2A && a !== UNCERTAIN_A2A),
    ).toEqual([]);
    expect(answers.filter((a) => a === final).length).toBeGreaterThanOrEqual(1);
    expect(await intents('a2a:ep1:burst-a2a')).toEqual([
      expect.objectContaining({ effect: 'Workspace.Write', status: 'succeeded' }),
    ]);
    expect(await logLength()).toBe(before + 1);
    expect((await recordAt(before)).invocationId).toBe('a2a:ep1:burst-a2a');
    expect(await readFile(join(worktree, 'a2a.txt'), 'utf8')).toBe('once\n');
  });

  it('SendMessage (A2A 1.0 SDK client): 20 concurrent sends of one messageId run the tool once', async () => {
    const fetchImpl: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('authorization', `Bearer ${token}`);
      return fetch(input, { ...init, headers });
    };
    const client = await new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl })],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
      }),
    ).createFromUrl(w.url);
    const request: SendMessageRequest = {
      tenant: '',
      message: {
        messageId: 'burst-sdk',
        contextId: '',
        taskId: '',
        role: 1,
        parts: [
          {
            content: { $case: 'data', value: { path: 'sdk.txt', content: 'once\n' } },
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
      metadata: { skill_id: 'ailang-write' },
    };
    const before = await logLength();
    const answers = await Promise.all(
      Array.from({ length: BURST }, () =>
        client.sendMessage(request).then(
          (task) => ({ task }),
          (err: { envelopeCode: number; message: string }) => ({
            refused: [err.envelopeCode, err.message],
          }),
        ),
      ),
    );
    const final = await client.sendMessage(request);
    expect(final).toMatchObject({
      id: 'burst-sdk',
      status: { state: TaskState.TASK_STATE_COMPLETED },
    });
    const refusals = [
      { refused: [-32602, 'task id already used in this session'] },
      { refused: [-32603, UNCERTAIN] },
    ];
    expect(
      answers.filter(
        (a) => !('task' in a && isEqual(a.task, final)) && !refusals.some((r) => isEqual(a, r)),
      ),
    ).toEqual([]);
    expect(answers.filter((a) => 'task' in a).length).toBeGreaterThanOrEqual(1);
    expect(await intents('a2a:ep1:burst-sdk')).toHaveLength(1);
    expect(await logLength()).toBe(before + 1);
    expect(await readFile(join(worktree, 'sdk.txt'), 'utf8')).toBe('once\n');
  });

  it('MCP with world/taskId: 20 concurrent resends run the tool once under mcp:<episode>:<key>', async () => {
    const before = await logLength();
    const call = () =>
      w.mcp(token, 'tools/call', {
        name: 'ailang-write',
        arguments: { path: 'mcp.txt', content: 'once\n' },
        _meta: { 'world/taskId': 'burst-mcp' },
      });
    const answers = await Promise.all(Array.from({ length: BURST }, call));
    const final = await call();
    const committed = final.body!.result!;
    expect(committed.structuredContent).toMatchObject({
      world: { effects: [{ id: 'e1', status: 'ok' }] },
    });
    const results = answers.filter((a) => a.body?.result !== undefined);
    const others = answers.filter((a) => a.body?.result === undefined);
    expect(results.length).toBeGreaterThanOrEqual(1);
    for (const a of results) {
      expect(a.body!.result!.structuredContent).toEqual(committed.structuredContent);
      expect(a.body!.result!.content).toEqual(committed.content);
    }
    expect(
      others.filter(
        (a) =>
          !(a.status === 200 && [IN_FLIGHT_MCP, UNCERTAIN_MCP].some((r) => isEqual(a.body, r))),
      ),
    ).toEqual([]);
    expect(await intents('mcp:ep1:burst-mcp')).toEqual([
      expect.objectContaining({ effect: 'Workspace.Write', status: 'succeeded' }),
    ]);
    expect(await logLength()).toBe(before + 1);
    const record = await recordAt(before);
    expect(record.invocationId).toBe('mcp:ep1:burst-mcp');
    expect((await w.get(`/v1/log/${before}`)).json.header.writtenBy).toBe('coordinator:mcp');
    expect(await readFile(join(worktree, 'mcp.txt'), 'utf8')).toBe('once\n');
  });
});

function isEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
