/**
 * The ways tx1 can run (StartEffect: chooseStart) are one law (CONVENTIONS.md "Fast paths"): the
 * same execute request on the same episode state writes the same rows, answers the same reply,
 * writes the same file and logs the same `effect executed` event whichever way ran — under the
 * caller's fence, in one statement on a free lease, or under the row lock taking over a lapsed
 * lease. Each way is recognized by the statements it sent (counted on node-postgres's Client).
 */
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import type { RequestOf } from '@world/contracts';
import { captureLogs } from '@world/runtime';
import { executeRequest, RPC_TIMEOUT_MS, startHarness, type Harness } from '../support/harness.js';

const opts = { timeoutMs: RPC_TIMEOUT_MS };
const EPISODE = 'ways';

/** Named statements sent while `recording` is set. */
let recording: string[] | undefined;
const clientQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const first = args[0] as string | { name?: string };
  if (recording !== undefined && typeof first !== 'string' && first.name !== undefined)
    recording.push(first.name);
  return (clientQuery as (...a: unknown[]) => unknown).apply(this, args);
} as typeof clientQuery;

/** The lease each way starts from: held by the caller (fence 1), free (fence 0), lapsed. */
const WAYS = {
  fenced: `UPDATE broker.episodes SET lease_holder = 'c1', lease_fence = 1,
    lease_expires_at = 9000000000000 WHERE id = '${EPISODE}'`,
  free: `UPDATE broker.episodes SET lease_holder = NULL, lease_fence = 0,
    lease_expires_at = NULL WHERE id = '${EPISODE}'`,
  lapsed: `UPDATE broker.episodes SET lease_holder = 'gone', lease_fence = 0,
    lease_expires_at = 1 WHERE id = '${EPISODE}'`,
} as const;
type Way = keyof typeof WAYS;

describe('tx1 ways write the same rows for the same request (real PostgreSQL)', () => {
  let h: Harness;
  let worktree: string;
  const credentials: Record<'funded' | 'broke', string> = { funded: '', broke: '' };

  beforeAll(async () => {
    h = await startHarness('nats');
    ({ worktree } = await h.rpc.request(
      'broker.episode.create',
      { episodeId: EPISODE, source: { kind: 'empty' } },
      opts,
    ));
    for (const [name, budget] of [
      ['funded', 5],
      ['broke', 0],
    ] as const) {
      const session = await h.rpc.request(
        'broker.session.mint',
        {
          episodeId: EPISODE,
          grants: [{ effect: 'Workspace.Write', scope: 'worktree', budget }],
          ttlSeconds: 600,
        },
        opts,
      );
      credentials[name] = session.credentialId;
    }
  });
  afterAll(async () => {
    pg.Client.prototype.query = clientQuery;
    await h.close();
  });

  /** Everything one execute leaves: reply, rows, lease, file, event, and the statements sent. */
  async function run(way: Way, credentialId: string) {
    await h.rows(`TRUNCATE broker.objects, broker.effect_records, broker.effect_intents,
      broker.effect_outcomes, broker.spend`);
    await h.rows(WAYS[way]);
    await rm(join(worktree, 'w.txt'), { force: true });
    const request: RequestOf<'broker.effect.execute'> = executeRequest({
      invocationId: `mcp:${EPISODE}:same`,
      credentialId,
      episodeId: EPISODE,
      now: 1_000,
      ...(way === 'fenced'
        ? { fence: 1 }
        : { acquire: { holder: 'c1', ttlMs: 60_000, waitMs: 10_000 } }),
      effect: {
        effect: 'Workspace.Write',
        payload: { op: 'write', path: 'w.txt', content: 'same bytes\n' },
      },
    });
    const logs = captureLogs('info');
    recording = [];
    let statements: string[];
    let reply;
    try {
      reply = await h.rpc.request('broker.effect.execute', request, opts);
    } finally {
      statements = recording;
      recording = undefined;
      logs.stop();
    }
    const events = logs.records
      .filter((r) => r.msg === 'effect executed')
      .map(({ replica, invocationId, episodeId, effect, status, ordinal, denial }) => ({
        replica,
        invocationId,
        episodeId,
        effect,
        status,
        ordinal,
        denial,
      }));
    const table = (text: string) => h.rows(text);
    return {
      statements,
      same: {
        reply,
        events,
        objects: await table(
          `SELECT ref, semantic_id, provenance, encode(payload, 'hex') AS payload
             FROM broker.objects ORDER BY ref`,
        ),
        records: await table('SELECT * FROM broker.effect_records ORDER BY ref'),
        intents: await table('SELECT * FROM broker.effect_intents ORDER BY ordinal'),
        outcomes: await table('SELECT * FROM broker.effect_outcomes ORDER BY ordinal'),
        spend: await table('SELECT * FROM broker.spend ORDER BY effect, scope'),
        lease: await table(
          `SELECT lease_holder, lease_fence FROM broker.episodes WHERE id = '${EPISODE}'`,
        ),
        file: existsSync(join(worktree, 'w.txt'))
          ? await readFile(join(worktree, 'w.txt'), 'utf8')
          : null,
      },
    };
  }

  it('an allowed write: fenced, free (one statement) and lapsed (row lock) agree', async () => {
    const fenced = await run('fenced', credentials.funded);
    const free = await run('free', credentials.funded);
    const lapsed = await run('lapsed', credentials.funded);
    expect([fenced.statements, free.statements, lapsed.statements]).toEqual([
      [
        'broker_session_find_with_episode',
        'broker_episode_lock',
        'broker_spend_of_episode',
        'broker_tx1_allowed_1',
        'broker_tx2_2',
      ],
      ['broker_session_find_with_episode', 'broker_tx1_free_1', 'broker_tx2_2'],
      [
        'broker_session_find_with_episode',
        'broker_lease_claim',
        'broker_spend_of_episode',
        'broker_tx1_allowed_1',
        'broker_tx2_2',
      ],
    ]);
    expect(free.same).toEqual(fenced.same);
    expect(lapsed.same).toEqual(fenced.same);
    expect(fenced.same).toMatchObject({
      reply: { fence: 1, status: 'ok', output: { ok: true } },
      events: [{ status: 'ok', ordinal: 0, denial: undefined }],
      intents: [{ ordinal: '0', invocation_id: `mcp:${EPISODE}:same`, cost: '1' }],
      outcomes: [{ ordinal: '0', status: 'succeeded' }],
      spend: [{ effect: 'Workspace.Write', scope: 'worktree', spent: '1' }],
      lease: [{ lease_holder: 'c1', lease_fence: '1' }],
      file: 'same bytes\n',
    });
    expect(fenced.same.objects).toHaveLength(3);
  });

  it('a denied write: the free lease takes the row-lock way, and all three agree', async () => {
    const fenced = await run('fenced', credentials.broke);
    const free = await run('free', credentials.broke);
    const lapsed = await run('lapsed', credentials.broke);
    const claimed = [
      'broker_session_find_with_episode',
      'broker_lease_claim',
      'broker_spend_of_episode',
      'broker_tx1_denied_2',
    ];
    expect([fenced.statements, free.statements, lapsed.statements]).toEqual([
      [
        'broker_session_find_with_episode',
        'broker_episode_lock',
        'broker_spend_of_episode',
        'broker_tx1_denied_2',
      ],
      claimed,
      claimed,
    ]);
    expect(free.same).toEqual(fenced.same);
    expect(lapsed.same).toEqual(fenced.same);
    expect(fenced.same).toMatchObject({
      reply: { fence: 1, status: 'denied', output: null },
      events: [{ status: 'denied', ordinal: null, denial: 'denied:budget' }],
      records: [{ allowed: false, denial: 'denied:budget', budget_before: '0' }],
      intents: [],
      outcomes: [],
      spend: [],
      file: null,
    });
  });
});
