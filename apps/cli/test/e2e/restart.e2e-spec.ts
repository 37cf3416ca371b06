/**
 * Spend persists per episode across a restart of the whole system (world-spec §2.9, §11
 * scenario 16 "restart daemon → still denied"), with the database kept: World's own PostgreSQL
 * cluster under WORLD_HOME in embedded mode, the same PostgreSQL database in distributed mode.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPostgres } from '@world/runtime';
import { createTestDatabase, testNatsUrl, uniquePrefix, type TestDatabase } from '@world/testing';
import {
  startDistributedInProcess,
  startEmbedded,
  type System,
} from '../../src/system/embedded.js';
import { worldPaths } from '../../src/system/paths.js';
import { HELLO_AIL, MODES, tempHomeRoot, type Mode } from '../support/system.js';

async function call(url: string, token: string, path: string) {
  const res = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'ailang-read', arguments: { path } },
    }),
  });
  const text = await res.text();
  const data = text.split('\n').find((l) => l.startsWith('data: '))!;
  return JSON.parse(data.slice(6)).result.structuredContent as Record<string, unknown>;
}

describe.each(MODES)('a restart keeps the log and the spend (%s mode)', (mode: Mode) => {
  let home: string;
  let db: TestDatabase | undefined;

  beforeAll(async () => {
    home = await tempHomeRoot('world-restart-');
    if (mode === 'distributed') db = await createTestDatabase('restart');
  });
  afterAll(async () => {
    await db?.drop();
    await rm(home, { recursive: true, force: true });
  });

  const boot = async (prefix: string): Promise<System> => {
    const paths = worldPaths({ WORLD_HOME: join(home, 'home') });
    return mode === 'embedded'
      ? startEmbedded({ paths, bind: '127.0.0.1:0' })
      : startDistributedInProcess({
          paths,
          bind: '127.0.0.1:0',
          natsUrl: testNatsUrl(),
          prefix,
          database: await openPostgres(db!.url),
          dbPath: db!.name,
        });
  };

  it('denies the budget-1 episode after a restart and keeps every entry', async () => {
    const prefix = uniquePrefix('restart');
    const first = await boot(prefix);
    const src = await mkdtemp(join(tmpdir(), 'world-restart-src-'));
    await writeFile(join(src, 'hello.ail'), HELLO_AIL);
    await first.rpc.request(
      'broker.episode.create',
      { episodeId: 'once', source: { kind: 'copy', dir: src } },
      { timeoutMs: 10_000 },
    );
    const grants = [{ effect: 'Workspace.Read', scope: 'worktree', budget: 1 }];
    const { token } = await first.rpc.request(
      'broker.session.mint',
      { episodeId: 'once', grants, ttlSeconds: 600 },
      { timeoutMs: 10_000 },
    );
    expect((await call(first.url, token, 'hello.ail')).ok).toBe(true);
    const headBefore = await first.rpc.request('ledger.head', {}, { timeoutMs: 5_000 });
    await first.close();

    const second = await boot(prefix);
    try {
      const headAfter = await second.rpc.request('ledger.head', {}, { timeoutMs: 5_000 });
      expect(headAfter).toEqual(headBefore);
      const denied = (await call(second.url, token, 'hello.ail')) as {
        world: { effects: Array<{ status: string }> };
      };
      expect(Object.keys(denied)).toEqual(['world']);
      expect(denied.world.effects[0]!.status).toBe('denied');
      const { token: fresh } = await second.rpc.request(
        'broker.session.mint',
        { episodeId: 'once', grants, ttlSeconds: 600 },
        { timeoutMs: 10_000 },
      );
      expect(
        ((await call(second.url, fresh, 'hello.ail')) as typeof denied).world.effects[0]!.status,
      ).toBe('denied');
      expect((await second.rpc.request('ledger.head', {}, { timeoutMs: 5_000 })).entryIndex).toBe(
        headBefore.entryIndex! + 2,
      );
    } finally {
      await second.close();
      await rm(src, { recursive: true, force: true });
    }
  });
});
