/**
 * Provenance that cannot be forged or silently altered, and episodes that cannot read each other
 * (DESIGN.md §3 "Who may read and write what"; world-internals §2.2 step 5.4), against a whole
 * World on real PostgreSQL and NATS (distributed mode), driven over HTTP, with `world why` run as
 * a real process. Tampering changes bytes in PostgreSQL itself.
 *
 * - A session cannot make a REST commit that claims a tool call: without the commit grant it is
 *   403; with it, writtenBy must name its episode and no object may be tool-call provenance.
 * - An entry whose effect record World's broker never wrote is never called verified by `why`.
 * - A resend of a committed task id, and every read that serves stored bytes, refuses bytes that
 *   no longer hash to their ref (StoredObjectCorrupt), and the ledger logs it for the operator.
 * - A session of episode B reads A's entry headers (the shared skeleton) but none of A's objects
 *   or receipts; A and the operator read them.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import {
  entryHash,
  makeJsonObject,
  refOf,
  toWireObject,
  worldRef,
  type LogEntry,
  type Ref,
  type World,
  type WorldObject,
} from '@world/canonical';
import { captureLogs } from '@world/runtime';
import { requireBuiltCli, runCli } from '../support/cli.js';
import { startTestSystem, type TestSystem } from '../support/system.js';

/** CLI runs start a Node process each; nothing here asserts a duration. */
const E2E_TIMEOUT_MS = 300_000;
const READ = { effect: 'Workspace.Read', scope: 'worktree', budget: 20 };
const WRITE = { effect: 'Workspace.Write', scope: 'worktree', budget: 20 };
const COMMIT = { effect: 'World.Commit', scope: 'log', budget: 5 };
const COMMIT_FORBIDDEN =
  'this session holds no live World.Commit=log:N grant (N ≥ 1): POST /v1/commit needs one, or the operator credential';
const lines = (text: string) => text.split('\n').filter((l) => l !== '');
const short = (ref: string) => `${ref.slice(0, 15)}…`;

describe('provenance that cannot be forged or altered, and episodes that cannot read each other (distributed mode)', () => {
  let w: TestSystem;
  let db: pg.Client;
  /** episode ep-a's session: reads and writes */
  let a: string;
  /** episode ep-b's read-only session */
  let bReader: string;
  /** episode ep-b's session holding the commit grant */
  let bCommitter: string;

  beforeAll(async () => {
    requireBuiltCli();
    w = await startTestSystem('distributed');
    db = new pg.Client({ connectionString: w.databaseUrl });
    await db.connect();
    await w.episode('ep-a', { 'secret.txt': 'value=1\n' });
    await w.episode('ep-b', { 'open.txt': 'open\n' });
    a = await w.session('ep-a', [READ, WRITE]);
    bReader = await w.session('ep-b', [READ]);
    bCommitter = await w.session('ep-b', [READ, COMMIT]);
  }, E2E_TIMEOUT_MS);
  afterAll(async () => {
    await db?.end();
    await w?.close();
  }, E2E_TIMEOUT_MS);

  /** `world why` as a process: with the operator credential, or with a session (a 0600 file). */
  const why = async (args: string[], session?: string) => {
    const env: Record<string, string> = { WORLD_URL: w.url, WORLD_HOME: w.paths.home };
    if (session !== undefined) {
      env.WORLD_SESSION = join(w.paths.home, `why-${session.slice(0, 8)}.session`);
      await writeFile(env.WORLD_SESSION, `${session}\n`, { mode: 0o600 });
    }
    return runCli(['why', ...args], env);
  };
  const head = async (): Promise<World> =>
    (await w.get(`/v1/worlds/${(await w.get('/v1/head')).text}`)).json;
  const entryAt = async (i: number): Promise<LogEntry> => (await w.get(`/v1/log/${i}`)).json;
  /** The invocation record, output and effect record refs of the entry at `index`. */
  const recordAt = async (index: number) => w.payload((await entryAt(index)).transitionRef, a);
  const commit = (token: string, body: unknown) =>
    fetch(`${w.url}/v1/commit`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(async (res) => [res.status, await res.json()] as const);
  /**
   * Changes one byte of an object's stored payload — the last byte of the first occurrence of
   * `needle` becomes `to` — and answers the ref the altered bytes hash to.
   */
  const alterByte = async (ref: string, needle: string, to: string): Promise<Ref> => {
    const { rows } = await db.query<{ at: number }>(
      `SELECT position(convert_to($1, 'UTF8') IN payload) - 2 + length(convert_to($1, 'UTF8')) AS at
         FROM ledger.objects WHERE hash = $2`,
      [needle, ref],
    );
    expect(rows[0]!.at).toBeGreaterThan(0);
    const { rows: altered } = await db.query<{ payload: Buffer }>(
      'UPDATE ledger.objects SET payload = set_byte(payload, $1, $2) WHERE hash = $3 RETURNING payload',
      [rows[0]!.at, to.charCodeAt(0), ref],
    );
    expect(altered).toHaveLength(1);
    return refOf(altered[0]!.payload);
  };

  /**
   * Objects shaped exactly like a committed `ailang-write` of episode ep-a — coordinator
   * writer, the real transitionFn and interpreter, invocation id `mcp:ep-a:…`, an effect record
   * with its request and result — for a write that never happened.
   */
  const forgedWrite = (real: LogEntry, taskId: string) => {
    const by = 'coordinator:mcp';
    const input = makeJsonObject('world/invocation-input/v1', by, {
      path: 'forged.txt',
      content: 'never written\n',
    });
    const effect = {
      id: 'e1',
      effect: 'Workspace.Write',
      scope: 'worktree',
      cost: 1,
      payload: { op: 'write', path: 'forged.txt', content: 'never written\n' },
    };
    const plan = makeJsonObject('world/effect-plan/v1', by, {
      plan: 'world/effect-plan/v1',
      effects: [effect],
      finish: false,
      result: null,
    });
    const request = makeJsonObject('world/effect-request/v1', 'host/broker', {
      effect: 'Workspace.Write',
      scope: 'worktree',
      cost: 1,
      now: 1_800_000_000_000,
      payload: effect.payload,
    });
    const result = makeJsonObject('world/effect-result/v1', 'host/broker', { ok: true });
    const record = makeJsonObject('world/effect-record/v1', 'host/broker', {
      effect: 'Workspace.Write',
      scope: 'worktree',
      cost: 1,
      budgetBefore: 20,
      budgetAfter: 19,
      allowed: true,
      failed: false,
      denial: '',
      requestRef: request.hash,
      resultRef: result.hash,
    });
    const output = makeJsonObject('world/invocation-output/v1', by, {
      ok: true,
      world: { effects: [{ id: 'e1', status: 'ok', record: record.hash }], plan: plan.hash },
    });
    const invocation = makeJsonObject('world/invocation-record/v2', by, {
      invocationId: `mcp:ep-a:${taskId}`,
      episodeId: 'ep-a',
      skillId: 'ailang-write',
      transitionFn: real.header.transitionFn,
      interpreter: real.header.interpreter,
      semanticsEpoch: real.header.semanticsEpoch,
      input: input.hash,
      output: output.hash,
      plan: plan.hash,
      effects: [record.hash],
    });
    const objects: WorldObject[] = [input, plan, request, result, record, output, invocation];
    return { objects, output, invocation, record };
  };
  /** A REST commit body appending the forged write on the current head. */
  const forgedBody = async (real: LogEntry, taskId: string, writtenBy = 'coordinator:mcp') => {
    const now = await head();
    const forged = forgedWrite(real, taskId);
    const header = {
      entryIndex: now.revision + 1,
      semanticsEpoch: real.header.semanticsEpoch,
      transitionFn: real.header.transitionFn,
      interpreter: real.header.interpreter,
      prevEntryHash: now.logHead,
      writtenBy,
    };
    const hash = entryHash(header, forged.invocation.hash);
    const shape = { revision: now.revision + 1, stateRoot: forged.output.hash, logHead: hash };
    return {
      observedHead: now.ref,
      objects: forged.objects.map(toWireObject),
      nextWorld: { ref: worldRef(shape), ...shape },
      entry: { header, entryHash: hash, transitionRef: forged.invocation.hash },
    };
  };

  it(
    'item 5: a session cannot forge a verifying ailang-write of another episode over POST /v1/commit',
    async () => {
      await w.call(a, 'ailang-write', { path: 'real.txt', content: 'real\n' });
      const realIndex = (await head()).revision;
      const real = await entryAt(realIndex);

      const body = await forgedBody(real, 'forged-1');
      expect(await commit(bReader, body)).toEqual([
        403,
        { error: { class: 'Forbidden', message: COMMIT_FORBIDDEN } },
      ]);
      expect(await commit(bCommitter, body)).toEqual([
        400,
        {
          error: {
            class: 'BadRequest',
            message:
              'entry.header.writtenBy must be "episode:ep-b" or "episode:ep-b/<label>" (it names the committer; coordinator:* is the coordinator\'s alone), got "coordinator:mcp"',
          },
        },
      ]);
      const asItself = await forgedBody(real, 'forged-2', 'episode:ep-b');
      expect(await commit(bCommitter, asItself)).toEqual([
        400,
        {
          error: {
            class: 'BadRequest',
            message:
              "objects[0].semanticId: world/invocation-input/v1 objects are written only by World's tool calls (coordinator, broker, ledger), not by POST /v1/commit",
          },
        },
      ]);
      // Nothing moved: the head is still the real write, and why still walks it.
      expect((await head()).revision).toBe(realIndex);
      const r = await why(['head']);
      expect([r.code, r.stderr, lines(r.stdout).at(-1)]).toEqual([0, '', 'all 8 link(s) verified']);
      expect(lines(r.stdout)[0]).toBe(`why: entry ${realIndex} (the head)`);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    "item 5: why does not call an entry verified when World's broker never wrote its effect record",
    async () => {
      // Only the coordinator may send ledger.commit; a forger with the bus stands in for one.
      const real = await entryAt((await head()).revision);
      const forged = forgedWrite(real, 'forged-bus');
      const reply = await w.system.rpc.request(
        'ledger.commit',
        {
          invocationId: 'mcp:ep-a:forged-bus',
          writtenBy: 'coordinator:mcp',
          semanticsEpoch: real.header.semanticsEpoch,
          transitionFn: real.header.transitionFn,
          interpreter: real.header.interpreter,
          transitionRef: forged.invocation.hash,
          stateRoot: forged.output.hash,
          objects: forged.objects.map(toWireObject),
        },
        { timeoutMs: 10_000 },
      );
      const r = await why(['head']);
      const out = lines(r.stdout);
      expect([r.code, r.stderr]).toEqual([3, '']);
      expect(out[0]).toBe(`why: entry ${reply.entryIndex} (the head)`);
      expect(out.slice(1, 6).map((l) => l.slice(0, 12))).toEqual(
        ['world', 'entry', 'record', 'input', 'plan'].map((n) => `  ✓ ${n.padEnd(8)}`),
      );
      expect(out[6]).toBe(
        `  ✗ effect  ${short(forged.record.hash)}  World's broker holds no such record (GET /v1/effects: not found): it never wrote it`,
      );
      expect(out[8]!.slice(0, 12)).toBe('  ✓ log     ');
      expect(out[9]).toBe('1 of 8 link(s) broken');
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'item 6: resending a committed task id (MCP and A2A) refuses an output whose stored bytes were altered',
    async () => {
      const mcp = await w.call(
        a,
        'ailang-read',
        { path: 'secret.txt' },
        { 'world/taskId': 'tamper-mcp' },
      );
      expect(mcp.content).toBe('value=1\n');
      const mcpIndex = (await head()).revision;
      const a2aBody = JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tasks/send',
        params: {
          id: 'tamper-a2a',
          metadata: { skill_id: 'ailang-read' },
          message: { role: 'user', parts: [{ type: 'data', data: { path: 'secret.txt' } }] },
        },
      });
      const tasksSend = () =>
        fetch(`${w.url}/a2a`, {
          method: 'POST',
          headers: { authorization: `Bearer ${a}`, 'content-type': 'application/json' },
          body: a2aBody,
        }).then((res) => res.json());
      const first = (await tasksSend()) as { result: { artifacts: unknown } };
      expect(first.result.artifacts).toBeDefined();
      const a2aIndex = (await head()).revision;
      const outputs = [(await recordAt(mcpIndex)).output, (await recordAt(a2aIndex)).output];
      const problems = [];
      for (const output of outputs)
        problems.push(
          `object ${output} has bytes that hash to ${await alterByte(output, 'value=1', '2')}`,
        );
      const logs = captureLogs('info');
      try {
        const resent = await w.mcp(a, 'tools/call', {
          name: 'ailang-read',
          arguments: { path: 'secret.txt' },
          _meta: { 'world/taskId': 'tamper-mcp' },
        });
        expect(resent.body).toEqual({
          jsonrpc: '2.0',
          id: 1,
          error: { code: -32603, message: 'host callback failed' },
        });
        expect(await tasksSend()).toEqual({
          jsonrpc: '2.0',
          id: 7,
          error: { code: -32603, message: 'transition invocation is not available in this daemon' },
        });
        const corrupt = logs.records.filter((l) => l.msg === 'stored object corrupt');
        expect(corrupt.map((l) => [l.service, l.level, l.problem])).toEqual([
          ['ledger', 50, problems[0]],
          ['ledger', 50, problems[1]],
        ]);
        // The same bytes are never served as valid by a read either.
        const read = await w.get(`/v1/objects/${outputs[0]}?payload=true`);
        expect([read.status, read.json]).toEqual([
          500,
          {
            error: {
              class: 'StoredObjectCorrupt',
              message: `stored object corrupt: ${problems[0]}`,
            },
          },
        ]);
      } finally {
        logs.stop();
      }
      // Nothing ran again and nothing was committed for the resends.
      expect((await head()).revision).toBe(a2aIndex);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'item 6: a log entry or a receipt whose stored row no longer recomputes is refused, not served',
    async () => {
      const now = await head();
      const state = makeJsonObject('world/demo/state', 'episode:ep-b/trust', { n: 1 });
      const header = {
        entryIndex: now.revision + 1,
        semanticsEpoch: 1,
        transitionFn: state.hash,
        interpreter: state.hash,
        prevEntryHash: now.logHead,
        writtenBy: 'episode:ep-b/trust',
      };
      const hash = entryHash(header, state.hash);
      const shape = { revision: now.revision + 1, stateRoot: state.hash, logHead: hash };
      const nextWorld = { ref: worldRef(shape), ...shape };
      expect(
        await commit(bCommitter, {
          invocationId: 'rest:ep-b:trust-1',
          observedHead: now.ref,
          objects: [toWireObject(state)],
          nextWorld,
          entry: { header, entryHash: hash, transitionRef: state.hash },
        }),
      ).toEqual([200, { selectedHead: nextWorld.ref }]);
      const index = header.entryIndex;

      await db.query(
        `UPDATE ledger.log_entries SET written_by = 'episode:ep-b/other' WHERE entry_index = $1`,
        [index],
      );
      const altered = entryHash({ ...header, writtenBy: 'episode:ep-b/other' }, state.hash);
      const entryProblem = `log entry ${index} (${hash}) has fields that hash to ${altered}`;
      for (const path of [`/v1/log/${index}`, `/v1/log?from=${index}`]) {
        const r = await w.get(path);
        expect([path, r.status, r.json]).toEqual([
          path,
          500,
          {
            error: {
              class: 'StoredObjectCorrupt',
              message: `stored object corrupt: ${entryProblem}`,
            },
          },
        ]);
      }
      await db.query(
        `UPDATE ledger.log_entries SET written_by = 'episode:ep-b/trust' WHERE entry_index = $1`,
        [index],
      );
      expect((await w.get(`/v1/log/${index}`)).json).toEqual({
        header,
        entryHash: hash,
        transitionRef: state.hash,
      });

      await db.query(
        `UPDATE ledger.commit_journal SET world_ref = $1 WHERE invocation_id = 'rest:ep-b:trust-1'`,
        [now.ref],
      );
      const receipt = await w.get('/v1/receipts/rest:ep-b:trust-1');
      expect([receipt.status, receipt.json]).toEqual([
        500,
        {
          error: {
            class: 'StoredObjectCorrupt',
            message: `stored object corrupt: receipt rest:ep-b:trust-1 names world ${now.ref}, which does not stand on entry ${index}`,
          },
        },
      ]);
      await db.query(
        `UPDATE ledger.commit_journal SET world_ref = $1 WHERE invocation_id = 'rest:ep-b:trust-1'`,
        [nextWorld.ref],
      );
      expect((await w.get('/v1/receipts/rest:ep-b:trust-1')).json).toEqual({
        invocationId: 'rest:ep-b:trust-1',
        state: 'resolved',
        resultRef: nextWorld.ref,
      });
    },
    E2E_TIMEOUT_MS,
  );

  it(
    "item 8: a session of episode B reads A's entry headers but none of A's objects or receipts",
    async () => {
      await w.call(a, 'ailang-write', { path: 'diary.txt', content: "A's written secret\n" });
      const aIndex = (await head()).revision;
      const aEntry = await entryAt(aIndex);
      const aRecord = await recordAt(aIndex);
      const aEffect = await w.payload(aRecord.effects[0], a);
      const aRequest = await w.payload(aEffect.requestRef, a);
      expect(aRequest.payload.content).toBe("A's written secret\n");
      const aRefs = [
        aEntry.transitionRef,
        aRecord.input,
        aRecord.output,
        aRecord.plan,
        aRecord.effects[0],
        aEffect.requestRef,
        aEffect.resultRef,
      ];

      // The shared skeleton: entry headers and hashes, the head, worlds, registry heads.
      expect(await w.get(`/v1/log/${aIndex}`, bReader)).toMatchObject({
        status: 200,
        json: aEntry,
      });
      expect((await w.get('/v1/head', bReader)).text).toBe((await head()).ref);
      expect((await w.get(`/v1/worlds/${(await head()).ref}`, bReader)).status).toBe(200);
      const registry = (await w.get('/v1/registry/world/transition-registry/v1', bReader)).json;
      expect((await w.get(`/v1/objects/${registry.head}?payload=true`, bReader)).status).toBe(200);
      expect((await w.get(`/v1/objects/${aEntry.header.transitionFn}`, bReader)).status).toBe(200);

      // A's payloads: 404 to B (ledger and broker alike), 200 to A and to the operator.
      const notFound = { error: { class: 'NotFound', message: 'object not found' } };
      for (const ref of aRefs) {
        const asB = await w.get(`/v1/objects/${ref}?payload=true`, bReader);
        expect([ref, asB.status, asB.json]).toEqual([ref, 404, notFound]);
        expect([ref, (await w.get(`/v1/objects/${ref}`, bCommitter)).status]).toEqual([ref, 404]);
        expect([ref, (await w.get(`/v1/objects/${ref}?payload=true`, a)).status]).toEqual([
          ref,
          200,
        ]);
        expect([ref, (await w.get(`/v1/objects/${ref}?payload=true`)).status]).toEqual([ref, 200]);
      }
      expect((await w.get(`/v1/effects/${aRecord.effects[0]}`, bReader)).json).toEqual({
        error: { class: 'NotFound', message: 'effect record not found' },
      });
      expect((await w.get(`/v1/effects/${aRecord.effects[0]}`, a)).status).toBe(200);
      const listed = async (token: string) =>
        (
          (await w.get('/v1/objects/by-semantic-id/world/effect-request/v1?limit=500', token)).json
            .items as Array<{ hash: string }>
        ).map((o) => o.hash);
      expect(await listed(bReader)).not.toContain(aEffect.requestRef);
      expect(await listed(a)).toContain(aEffect.requestRef);

      // B's own call: every object readable to B, and why walks it with B's session.
      await w.call(bReader, 'ailang-read', { path: 'open.txt' });
      const bIndex = (await head()).revision;
      const bRecord = await w.payload((await entryAt(bIndex)).transitionRef, bReader);
      expect((await w.get(`/v1/objects/${bRecord.output}?payload=true`, bReader)).status).toBe(200);
      expect((await w.get(`/v1/objects/${bRecord.output}`, a)).status).toBe(404);
      const r = await why([String(bIndex)], bReader);
      expect([r.code, r.stderr, lines(r.stdout).at(-1)]).toEqual([0, '', 'all 8 link(s) verified']);

      // Receipts: a session reads its own episode's ids only (ep-b's receipt is not A's).
      expect((await w.get('/v1/receipts/rest:ep-b:never', bReader)).json).toEqual({
        invocationId: 'rest:ep-b:never',
        state: 'not-started',
      });
      expect((await w.get('/v1/receipts/rest:ep-b:trust-1', bReader)).json).toMatchObject({
        state: 'resolved',
      });
      const other = await w.get('/v1/receipts/rest:ep-b:trust-1', a);
      expect([other.status, other.json]).toEqual([
        404,
        { error: { class: 'NotFound', message: 'receipt not found' } },
      ]);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    "item 7: the gateway's /readyz shows the start-up integrity scans of the ledger and broker running beside it",
    async () => {
      const res = await fetch(`${w.url}/readyz`);
      const body = (await res.json()) as Record<string, unknown>;
      const clean = {
        state: 'clean',
        scanned: expect.any(Number),
        mismatches: 0,
        problems: [],
        complete: true,
      };
      expect([res.status, body]).toEqual([
        200,
        {
          status: 'ready',
          checks: { database: 'ok', nats: 'ok' },
          integrity: { ledger: clean, broker: clean },
        },
      ]);
    },
    E2E_TIMEOUT_MS,
  );
});
