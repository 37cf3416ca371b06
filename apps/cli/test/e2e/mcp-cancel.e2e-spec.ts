/**
 * MCP cancellation (README "Cancellation"; MCP basic/utilities/cancellation; 2026-07-28
 * streamable HTTP "closing that stream = cancellation"; world-internals §5.5 "before intent →
 * never dispatched"), with the official SDK clients on the wire, in both run modes:
 * - (a) a v1 (2025-era) client aborts a keyed `ailang-write` while the broker waits for the
 *   episode lease the test holds: the SDK sends `notifications/cancelled`, the call is dropped
 *   at the broker's lease wait, nothing is written (no intent, spend, record, entry; the file is
 *   as it was), the journal row ends `abandoned`, and a resend of the same `world/taskId` runs
 *   the call afresh and commits it;
 * - (b) a v1 client aborts once the effect ran (its commit held by a table lock): the call
 *   completes and commits as any other, and a resend answers the committed result;
 * - (c) a v2 client pinned to 2026-07-28 aborts, which closes the request's stream (no
 *   notification), or a 2025-03-26 POST's connection is closed: the same as (a);
 * - on the raw wire, the cancelled POST ends with HTTP 200, `text/event-stream` and no message,
 *   and the notification is answered 202;
 * - a resend of the task id while the call waits for the lease is refused `-32602` and does not
 *   keep the cancelled call alive: the broker still drops it, and a later resend runs it afresh;
 * - a 2025-03-26 batch cancelling one of its own requests is refused 400, nothing in it run.
 * Every wait is on a state (a metric, a row, a lock waiter), never on time.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { eventually } from '@world/testing';
import { worldMetrics } from '@world/runtime';
import type { Grant } from '@world/contracts';
import { holdLock, waitForLockWaiter } from '../support/locks.js';
import { MODES, startTestSystem, type Mode, type TestSystem } from '../support/system.js';

const WRITE: Grant[] = [{ effect: 'Workspace.Write', scope: 'worktree', budget: 50 }];
const BEFORE = 'before\n';
const AFTER = 'after\n';

/** How each SDK client rejects a call aborted with `new Error(REASON)` (client-side, local). */
const REASON = 'the test cancels this call';
const V1_CANCELLED = { name: 'McpError', message: `MCP error -32001: Error: ${REASON}` };
const V2_CANCELLED = { name: 'SdkError', message: `Error: ${REASON}` };

function described(err: unknown): { name: string; message: string } | unknown {
  return err instanceof Error ? { name: err.name, message: err.message } : err;
}

/** The sum of a counter's values over every label set (this process's registry). */
async function counter(name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = worldMetrics().registry.getSingleMetric(name);
  if (metric === undefined) return 0;
  const { values } = await metric.get();
  return values
    .filter((v) => Object.entries(labels).every(([k, want]) => v.labels[k] === want))
    .reduce((sum, v) => sum + v.value, 0);
}

describe.each(MODES)('MCP cancellation (%s mode)', (mode: Mode) => {
  let t: TestSystem;
  let db: pg.Client;

  beforeAll(async () => {
    t = await startTestSystem(mode);
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await t?.close();
  }, 60_000);

  const q = async (sql: string, params: unknown[] = []) => (await db.query(sql, params)).rows;
  const head = async () => Number((await q('SELECT entry_index AS i FROM ledger.heads'))[0]!.i);
  const journal = (invocationId: string) =>
    q('SELECT state, end_reason, entry_index FROM ledger.commit_journal WHERE invocation_id = $1', [
      invocationId,
    ]);
  /** What the broker holds for an episode: intents, records, spend. */
  const brokerRows = async (episodeId: string) => ({
    intents: await q(
      'SELECT invocation_id, ordinal, cost::int AS cost FROM broker.effect_intents WHERE episode_id = $1',
      [episodeId],
    ),
    records: Number(
      (
        await q(
          `SELECT count(*)::int AS n FROM broker.effect_records
            WHERE invocation_id LIKE $1`,
          [`mcp:${episodeId}:%`],
        )
      )[0]!.n,
    ),
    spend: await q('SELECT effect, spent::int AS spent FROM broker.spend WHERE episode_id = $1', [
      episodeId,
    ]),
  });

  /** An episode with notes.txt = BEFORE and a Workspace.Write session; the file's path. */
  async function fixture(episodeId: string): Promise<{ token: string; file: string }> {
    const worktree = await t.episode(episodeId, { 'notes.txt': BEFORE });
    return { token: await t.session(episodeId, WRITE), file: join(worktree, 'notes.txt') };
  }

  /** Holds the episode lease as the test's own holder; returns its release. */
  async function holdLease(episodeId: string): Promise<() => Promise<void>> {
    const holder = 'test/lease-holder';
    const { fence } = await t.system.rpc.request(
      'broker.episode.acquire',
      { episodeId, holder, ttlMs: 120_000, waitMs: 0 },
      { timeoutMs: 10_000 },
    );
    return async () => {
      await t.system.rpc.request(
        'broker.episode.release',
        { episodeId, holder, fence },
        { timeoutMs: 10_000 },
      );
    };
  }

  const writeArgs = { path: 'notes.txt', content: AFTER };

  /** POSTs one JSON-RPC message or batch to /mcp as the session's client, on the raw wire. */
  const post = (token: string, body: unknown) =>
    fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify(body),
    });
  /** A POST's answer: status, media type, and the JSON-RPC messages of its SSE stream or body. */
  const answerOf = async (res: Response) => {
    const text = await res.text();
    const type = res.headers.get('content-type');
    const messages =
      type === 'text/event-stream'
        ? text
            .split('\n')
            .filter((line) => line.startsWith('data: '))
            .map((line) => JSON.parse(line.slice('data: '.length)) as unknown)
        : text;
    return { status: res.status, type, messages };
  };
  const writeCall = (id: number, taskId: string) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'ailang-write', arguments: writeArgs, _meta: { 'world/taskId': taskId } },
  });
  const cancelOf = (requestId: number) => ({
    jsonrpc: '2.0',
    method: 'notifications/cancelled',
    params: { requestId },
  });

  /**
   * Runs a call that the test cancels while the broker waits for the lease the test holds, then
   * lets the lease go. `start` begins the call with the signal; resolves once the call ended.
   */
  async function cancelWhileWaiting(
    episodeId: string,
    start: (signal: AbortSignal) => Promise<unknown>,
  ): Promise<unknown> {
    const release = await holdLease(episodeId);
    const waits = await counter('world_lease_waits_total');
    const cancels = await counter('world_call_cancels_total');
    const cancelled = await counter('world_calls_total', { outcome: 'cancelled' });
    const abort = new AbortController();
    const settled = start(abort.signal).then(
      (result) => ({ answered: result }),
      (err: unknown) => ({ rejected: described(err) }),
    );
    await eventually(
      async () => ((await counter('world_lease_waits_total')) > waits ? true : undefined),
      30_000,
      'the call waiting for the lease',
    );
    const reason = new Error(REASON);
    abort.abort(reason);
    await eventually(
      async () => ((await counter('world_call_cancels_total')) > cancels ? true : undefined),
      30_000,
      'the planner hearing the cancellation',
    );
    await release();
    await eventually(
      async () =>
        (await counter('world_calls_total', { outcome: 'cancelled' })) > cancelled
          ? true
          : undefined,
      30_000,
      'the call ending cancelled',
    );
    return settled;
  }

  /** Nothing of a cancelled call was written; a resend of its task id runs and commits. */
  async function expectNothingThenResend(
    episodeId: string,
    token: string,
    file: string,
    taskId: string,
    headBefore: number,
  ): Promise<void> {
    const invocationId = `mcp:${episodeId}:${taskId}`;
    expect(await brokerRows(episodeId)).toEqual({ intents: [], records: 0, spend: [] });
    expect(await head()).toBe(headBefore);
    expect(await readFile(file, 'utf8')).toBe(BEFORE);
    expect(await journal(invocationId)).toEqual([
      { state: 'ended', end_reason: 'abandoned', entry_index: null },
    ]);

    const client = await t.v1Client(token);
    const resent = await client.callTool({
      name: 'ailang-write',
      arguments: writeArgs,
      _meta: { 'world/taskId': taskId },
    });
    expect(resent.structuredContent).toMatchObject({ ok: true });
    expect(resent._meta?.['world/entryIndex']).toBe(headBefore + 1);
    expect(await readFile(file, 'utf8')).toBe(AFTER);
    expect(await journal(invocationId)).toEqual([
      { state: 'committed', end_reason: null, entry_index: String(headBefore + 1) },
    ]);
    expect(await brokerRows(episodeId)).toEqual({
      intents: [{ invocation_id: invocationId, ordinal: '0', cost: 1 }],
      records: 1,
      spend: [{ effect: 'Workspace.Write', spent: 1 }],
    });
  }

  it('(a) notifications/cancelled before the hand-off: nothing written; a resend runs it', async () => {
    const episodeId = `ep-cancel-a-${mode}`;
    const { token, file } = await fixture(episodeId);
    const headBefore = await head();
    const client = await t.v1Client(token);
    const outcome = await cancelWhileWaiting(episodeId, (signal) =>
      client.callTool(
        { name: 'ailang-write', arguments: writeArgs, _meta: { 'world/taskId': 'k-a' } },
        undefined,
        { signal },
      ),
    );
    expect(outcome).toEqual({ rejected: V1_CANCELLED });
    await expectNothingThenResend(episodeId, token, file, 'k-a', headBefore);
  }, 120_000);

  it('(c) a 2026-07-28 client closing the stream before the hand-off: the same as (a)', async () => {
    const episodeId = `ep-cancel-c-${mode}`;
    const { token, file } = await fixture(episodeId);
    const headBefore = await head();
    const client = await t.v2Client(token);
    const outcome = await cancelWhileWaiting(episodeId, (signal) =>
      client.callTool(
        { name: 'ailang-write', arguments: writeArgs, _meta: { 'world/taskId': 'k-c' } },
        { signal },
      ),
    );
    expect(outcome).toEqual({ rejected: V2_CANCELLED });
    await expectNothingThenResend(episodeId, token, file, 'k-c', headBefore);
  }, 120_000);

  it('(a) on the wire: the cancelled POST ends with no message; the notification is 202', async () => {
    const episodeId = `ep-cancel-wire-${mode}`;
    const { token, file } = await fixture(episodeId);
    const headBefore = await head();
    const post = (body: unknown) =>
      fetch(`${t.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${token}`,
        },
        body: JSON.stringify(body),
      });
    let notified: Promise<{ status: number; text: string }> | undefined;
    const outcome = await cancelWhileWaiting(episodeId, async (signal) => {
      signal.addEventListener('abort', () => {
        notified = post({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: 7, reason: 'the user stopped it' },
        }).then(async (res) => ({ status: res.status, text: await res.text() }));
      });
      const res = await post({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'ailang-write', arguments: writeArgs, _meta: { 'world/taskId': 'k-w' } },
      });
      return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
    });
    expect(outcome).toEqual({ answered: { status: 200, type: 'text/event-stream', text: '' } });
    expect(await notified).toEqual({ status: 202, text: '' });
    await expectNothingThenResend(episodeId, token, file, 'k-w', headBefore);
  }, 120_000);

  it('(c) a 2025-03-26 client closing its connection before the hand-off: the same as (a)', async () => {
    const episodeId = `ep-cancel-close-${mode}`;
    const { token, file } = await fixture(episodeId);
    const headBefore = await head();
    const outcome = await cancelWhileWaiting(episodeId, (signal) =>
      fetch(`${t.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${token}`,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'ailang-write', arguments: writeArgs, _meta: { 'world/taskId': 'k-x' } },
        }),
        signal,
      }),
    );
    expect(outcome).toEqual({ rejected: { name: 'Error', message: REASON } });
    await expectNothingThenResend(episodeId, token, file, 'k-x', headBefore);
  }, 120_000);

  it('(b) a cancellation after the effect ran: the call commits as any other', async () => {
    const episodeId = `ep-cancel-b-${mode}`;
    const { token, file } = await fixture(episodeId);
    const invocationId = `mcp:${episodeId}:k-b`;
    const headBefore = await head();
    const cancels = await counter('world_call_cancels_total');
    const committed = await counter('world_calls_total', { outcome: 'ok' });
    // The commit waits on this lock, so the cancellation lands after the effect, before the entry.
    const unlock = await holdLock(t.databaseUrl, 'LOCK TABLE ledger.log_entries IN EXCLUSIVE MODE');
    try {
      const client = await t.v1Client(token);
      const abort = new AbortController();
      const settled = client
        .callTool(
          { name: 'ailang-write', arguments: writeArgs, _meta: { 'world/taskId': 'k-b' } },
          undefined,
          { signal: abort.signal },
        )
        .then(
          (result) => ({ answered: result }),
          (err: unknown) => ({ rejected: described(err) }),
        );
      await waitForLockWaiter(q, 'the commit waiting on the lock', 30_000);
      expect((await brokerRows(episodeId)).records).toBe(1);
      const reason = new Error(REASON);
      abort.abort(reason);
      await eventually(
        async () => ((await counter('world_call_cancels_total')) > cancels ? true : undefined),
        30_000,
        'the planner hearing the cancellation',
      );
      await unlock();
      await eventually(
        async () =>
          (await counter('world_calls_total', { outcome: 'ok' })) > committed ? true : undefined,
        30_000,
        'the call committing',
      );
      expect(await settled).toEqual({ rejected: V1_CANCELLED });
    } finally {
      await unlock().catch(() => undefined);
    }
    expect(await head()).toBe(headBefore + 1);
    expect(await readFile(file, 'utf8')).toBe(AFTER);
    expect(await journal(invocationId)).toEqual([
      { state: 'committed', end_reason: null, entry_index: String(headBefore + 1) },
    ]);
    expect(await brokerRows(episodeId)).toEqual({
      intents: [{ invocation_id: invocationId, ordinal: '0', cost: 1 }],
      records: 1,
      spend: [{ effect: 'Workspace.Write', spent: 1 }],
    });
    // A resend answers the committed result; nothing runs again.
    const resent = await (
      await t.v1Client(token)
    ).callTool({ name: 'ailang-write', arguments: writeArgs, _meta: { 'world/taskId': 'k-b' } });
    expect(resent._meta?.['world/entryIndex']).toBe(headBefore + 1);
    expect(resent.structuredContent).toMatchObject({ ok: true });
    expect(await head()).toBe(headBefore + 1);
    expect((await brokerRows(episodeId)).intents).toHaveLength(1);
  }, 120_000);

  it('(a) a resend beside a call waiting for the lease is refused and does not keep it alive', async () => {
    const episodeId = `ep-cancel-beside-${mode}`;
    const { token, file } = await fixture(episodeId);
    const headBefore = await head();
    const release = await holdLease(episodeId);
    const waits = await counter('world_lease_waits_total');
    const cancels = await counter('world_call_cancels_total');
    const cancelled = await counter('world_calls_total', { outcome: 'cancelled' });
    const first = post(token, writeCall(7, 'k-r')).then(answerOf);
    await eventually(
      async () => ((await counter('world_lease_waits_total')) > waits ? true : undefined),
      30_000,
      'the call waiting for the lease',
    );
    // The first call holds the task id's claim until the broker drops it from the lease queue:
    // a resend meanwhile (before the cancel, or right after its 202) is refused.
    expect(await answerOf(await post(token, writeCall(8, 'k-r')))).toEqual({
      status: 200,
      type: 'text/event-stream',
      messages: [
        {
          jsonrpc: '2.0',
          id: 8,
          error: { code: -32602, message: 'task id already used in this session' },
        },
      ],
    });
    expect(await answerOf(await post(token, cancelOf(7)))).toEqual({
      status: 202,
      type: null,
      messages: '',
    });
    await eventually(
      async () => ((await counter('world_call_cancels_total')) > cancels ? true : undefined),
      30_000,
      'the planner hearing the cancellation',
    );
    // The broker drops the cancelled call at its next look, while the test still holds the lease.
    await eventually(
      async () =>
        (await counter('world_calls_total', { outcome: 'cancelled' })) > cancelled
          ? true
          : undefined,
      30_000,
      'the call ending cancelled',
    );
    expect(await first).toEqual({ status: 200, type: 'text/event-stream', messages: [] });
    await release();
    await expectNothingThenResend(episodeId, token, file, 'k-r', headBefore);
  }, 120_000);

  it.each([
    ['[call 22, cancel 22]', [22], 22],
    ['[call 10, cancel 10, call 11]', [10, 11], 10],
  ])(
    'a 2025-03-26 batch cancelling its own request %s: 400 before anything runs',
    async (_name, ids, cancelled) => {
      const episodeId = `ep-cancel-batch-${ids.join('-')}-${mode}`;
      const { token, file } = await fixture(episodeId);
      const headBefore = await head();
      const batch = ids.map((id) => writeCall(id, `k-batch-${id}`));
      batch.splice(1, 0, cancelOf(cancelled) as never);
      expect(await answerOf(await post(token, batch))).toEqual({
        status: 400,
        type: 'text/plain; charset=utf-8',
        messages: `JSON-RPC batch cancels its own request id ${cancelled}: send notifications/cancelled in its own POST`,
      });
      expect(await brokerRows(episodeId)).toEqual({ intents: [], records: 0, spend: [] });
      expect(await head()).toBe(headBefore);
      expect(await readFile(file, 'utf8')).toBe(BEFORE);
      for (const id of ids) expect(await journal(`mcp:${episodeId}:k-batch-${id}`)).toEqual([]);
    },
    120_000,
  );
});
