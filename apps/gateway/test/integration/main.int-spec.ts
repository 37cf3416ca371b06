import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { INestMicroservice } from '@nestjs/common';
import { startMicroservice } from '@world/runtime';
import { freePort, startNode, testNatsUrl, uniquePrefix } from '@world/testing';
import { FakeWorld, ref } from './fake-world.js';

// The process entry runs from the build (`pnpm test` builds first; alone: turbo run build).
const MAIN = join(dirname(fileURLToPath(import.meta.url)), '../../dist/main.js');

describe('the gateway process (dist/main.js)', () => {
  let home: string;

  beforeAll(async () => {
    if (!existsSync(MAIN))
      throw new Error(
        `${MAIN} is missing: build the gateway first (pnpm exec turbo run build --filter=@world/gateway...)`,
      );
    home = await mkdtemp(join(tmpdir(), 'world-gateway-main-'));
  });

  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('exits 2 with `bind host "0.0.0.0" is not loopback` (world-spec §11 additional candidates)', async () => {
    const proc = startNode(MAIN, [], {
      NATS_URL: testNatsUrl(),
      WORLD_BIND: '0.0.0.0:7644',
      WORLD_HOME: home,
    });
    const { code } = await proc.exited;
    expect(code).toBe(2);
    expect(proc.lines).toEqual([
      'gateway: bind host "0.0.0.0" is not loopback (set WORLD_BIND_PUBLIC=1 to serve beyond loopback)',
    ]);
  });

  it('exits 2 when NATS_URL is missing', async () => {
    const proc = startNode(MAIN, [], { NATS_URL: '', WORLD_HOME: home });
    expect((await proc.exited).code).toBe(2);
    expect(proc.lines[0]).toBe(
      'gateway: invalid configuration: NATS_URL: NATS_URL must be a URL such as nats://127.0.0.1:4222',
    );
  });

  it('logs ready, serves over NATS, and exits 0 on SIGTERM', async () => {
    const prefix = uniquePrefix('gateway-main');
    const world = new FakeWorld();
    const planner: INestMicroservice = await startMicroservice('planner', world.modules().planner, {
      kind: 'nats',
      url: testNatsUrl(),
      prefix,
    });
    const port = await freePort();
    const proc = startNode(MAIN, [], {
      NATS_URL: testNatsUrl(),
      WORLD_SUBJECT_PREFIX: prefix,
      WORLD_BIND: `127.0.0.1:${port}`,
      WORLD_HOME: home,
      WORLD_DB_PATH: '/srv/world.db',
      WORLD_LOG_LEVEL: 'info',
    });
    try {
      const ready = JSON.parse(await proc.waitForLine(/"msg":"ready"/)) as Record<string, unknown>;
      expect([ready.service, ready.url, ready.operatorTokenFile]).toEqual([
        'gateway',
        `http://127.0.0.1:${port}`,
        join(home, 'operator.token'),
      ]);
      const res = await fetch(`http://127.0.0.1:${port}/v1/health`);
      expect(await res.json()).toEqual({
        status: 'ok',
        daemon_version: '0.1.0',
        db_path: '/srv/world.db',
        interpreter_ref: ref('2'),
        interpreter_version: 'world-planner 0.1.0 (node v20)',
      });
      const token = (await readFile(join(home, 'operator.token'), 'utf8')).trim();
      expect(proc.lines.filter((l) => l.includes(token))).toEqual([]);
      proc.kill('SIGTERM');
      expect((await proc.exited).code).toBe(0);
    } finally {
      proc.kill('SIGKILL');
      await planner.close();
    }
  });
});
