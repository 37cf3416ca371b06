import { existsSync } from 'node:fs';
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EPISODE_LEASE_TTL_MS, type ParsedRequestOf } from '@world/contracts';
import pg from 'pg';
import { connectRpc, type RpcClient } from '@world/runtime';
import {
  createTestDatabase,
  eventually,
  startNode,
  testNatsUrl,
  uniquePrefix,
  type TestDatabase,
  type TestProcess,
} from '@world/testing';
import { executeRequest } from '../support/harness.js';

const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const opts = { timeoutMs: 20_000 };

describe('a broker killed between intent and outcome (world-internals §5.5, incident 3)', () => {
  let db: TestDatabase;
  let home: string;
  let rpc: RpcClient;
  const prefix = uniquePrefix('crash');
  const processes: TestProcess[] = [];

  const start = async (replica: string, crash?: string) => {
    const child = startNode(MAIN, [], {
      NATS_URL: testNatsUrl(),
      DATABASE_URL: db.url,
      WORLD_SUBJECT_PREFIX: prefix,
      WORLD_HOME: home,
      WORLD_REPLICA: replica,
      WORLD_LOG_LEVEL: 'debug',
      WORLD_CRASHPOINT: crash ?? '',
      // an orphan whose lease had not lapsed at the start is reported by the next sweep
      WORLD_ORPHAN_SWEEP_MS: '200',
    });
    processes.push(child);
    await child.waitForLine(/"msg":"ready"/);
    return child;
  };

  beforeAll(async () => {
    if (!existsSync(MAIN))
      throw new Error(
        `${MAIN} is missing: build first (pnpm exec turbo run build --filter=@world/broker...)`,
      );
    db = await createTestDatabase('broker_crash');
    home = await realpath(await mkdtemp(join(tmpdir(), 'broker-crash-')));
    rpc = await connectRpc({ kind: 'nats', url: testNatsUrl(), prefix }, 'crash-test');
  });

  afterAll(async () => {
    for (const child of processes) {
      child.kill('SIGKILL');
      await child.exited;
    }
    await rpc.close();
    await db.drop();
    await rm(home, { recursive: true, force: true });
  });

  it('leaves an intent that the next start reports as indeterminate and never re-runs', async () => {
    const first = await start('crash-1', 'after-intent');
    const { worktree } = await rpc.request(
      'broker.episode.create',
      { episodeId: 'crash', source: { kind: 'empty' } },
      opts,
    );
    await writeFile(join(worktree, 'a.txt'), 'old\n');
    const session = await rpc.request(
      'broker.session.mint',
      {
        episodeId: 'crash',
        grants: [{ effect: 'Workspace.Write', scope: 'worktree', budget: 5 }],
        ttlSeconds: 3600,
      },
      opts,
    );
    const invocationId = 'mcp:crash:t1';
    const failed = await rpc
      .request(
        'broker.effect.execute',
        executeRequest({
          invocationId,
          credentialId: session.credentialId,
          episodeId: 'crash',
          // the lease the planner takes: it lapses soon after its holder dies
          acquire: { holder: 'planner-1', ttlMs: EPISODE_LEASE_TTL_MS, waitMs: 0 },
          effect: {
            effect: 'Workspace.Write',
            payload: { op: 'write', path: 'a.txt', content: 'new\n' },
          },
        }),
        { timeoutMs: 5_000 },
      )
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(Error);
    await expect(first.exited).resolves.toEqual({ code: null, signal: 'SIGKILL' });
    expect(await readFile(join(worktree, 'a.txt'), 'utf8')).toBe('old\n');

    const reports: Array<ParsedRequestOf<'broker.recovery'>> = [];
    const off = rpc.subscribe('broker.recovery', (event) => reports.push(event));
    await rpc.ping();
    const second = await start('crash-2');
    const expected = {
      invocationId,
      episodeId: 'crash',
      ordinal: 0,
      effect: 'Workspace.Write',
      scope: 'worktree',
    };
    await eventually(() => (reports.length > 0 ? true : undefined), 10_000, 'the recovery event');
    off();
    expect(reports).toEqual([{ replica: 'crash-2', items: [expected] }]);
    const line = second.lines.find((l) => l.includes('indeterminate effect intent'));
    expect(JSON.parse(line!)).toMatchObject({
      level: 40,
      service: 'broker',
      replica: 'crash-2',
      ...expected,
    });

    expect(await readFile(join(worktree, 'a.txt'), 'utf8')).toBe('old\n');
    await expect(
      rpc.request('broker.effect.byInvocation', { invocationId }, opts),
    ).resolves.toEqual({
      items: [
        {
          ordinal: 0,
          effect: 'Workspace.Write',
          scope: 'worktree',
          cost: 1,
          status: 'indeterminate',
          recordRef: null,
        },
      ],
    });

    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query(
        'SELECT (SELECT sum(spent) FROM broker.spend)::int AS spent, (SELECT sum(cost) FROM broker.effect_intents)::int AS intents, (SELECT count(*) FROM broker.effect_outcomes)::int AS outcomes',
      );
      expect(rows).toEqual([{ spent: 1, intents: 1, outcomes: 0 }]);
    } finally {
      await client.end();
    }

    for (const child of [first, second]) {
      for (const l of child.lines) expect(l).not.toContain(session.token);
    }
    second.kill('SIGTERM');
    await expect(second.exited).resolves.toEqual({ code: 0, signal: null });
  });
});
