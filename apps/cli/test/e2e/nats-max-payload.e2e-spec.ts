/**
 * A NATS server with the default 1 MiB max_payload (the machine's own, ecosystem §8): a commit of
 * a 300 KB write does not fit on it, so no service may start on it (DESIGN.md §1 "an effect whose
 * commit could not fit on the bus never runs"). Each service process, and `world up`, exits 2
 * with one line naming the setting, before it serves anything; on the deployment's 8 MiB server
 * (every other suite) they start.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COMMIT_MESSAGE_MAX_BYTES, NATS_MAX_PAYLOAD_BYTES } from '@world/contracts';
import {
  createTestDatabase,
  freePort,
  startNatsServer,
  startNode,
  uniquePrefix,
  type TestDatabase,
  type TestNatsServer,
} from '@world/testing';
import { SERVICES } from '../../src/system/up-args.js';
import { serviceEntry } from '../../src/system/up.js';
import { requireBuiltCli, runCli } from '../support/cli.js';

const E2E_TIMEOUT_MS = 120_000;
/** NATS's own default max_payload (ecosystem §1: 1 MiB). */
const DEFAULT_MAX_PAYLOAD = 1_048_576;

describe('a NATS server whose max_payload is below the largest commit', () => {
  let nats: TestNatsServer;
  let db: TestDatabase;
  let home: string;
  const line = () =>
    `NATS max_payload is ${DEFAULT_MAX_PAYLOAD} bytes at ${nats.url}; World needs at least ${COMMIT_MESSAGE_MAX_BYTES} (its largest commit message, COMMIT_MESSAGE_MAX_BYTES): set max_payload: ${NATS_MAX_PAYLOAD_BYTES} in the server's configuration (infra/nats/nats.conf)`;

  beforeAll(async () => {
    requireBuiltCli();
    nats = await startNatsServer();
    db = await createTestDatabase('maxpayload');
    home = await mkdtemp(join(tmpdir(), 'world-maxpayload-'));
  }, E2E_TIMEOUT_MS);
  afterAll(async () => {
    await nats?.stop();
    await db?.drop();
    if (home) await rm(home, { recursive: true, force: true });
  }, E2E_TIMEOUT_MS);

  it.each(SERVICES)(
    'the %s process exits 2 with one line naming max_payload',
    async (service) => {
      const proc = startNode(serviceEntry(service), [], {
        NATS_URL: nats.url,
        DATABASE_URL: db.url,
        WORLD_SUBJECT_PREFIX: uniquePrefix(service),
        WORLD_HOME: join(home, service),
        WORLD_BIND: `127.0.0.1:${await freePort()}`,
        WORLD_LOG_LEVEL: 'info',
      });
      // A service that does not refuse logs "ready" and serves: stopped here, the test fails.
      const ended = await Promise.race([
        proc.exited,
        proc.waitForLine(/"msg":"ready"/, E2E_TIMEOUT_MS).then(() => 'ready' as const),
      ]).catch(() => 'exited before ready' as const);
      if (ended === 'ready') proc.kill('SIGKILL');
      expect(await proc.exited).toEqual({ code: 2, signal: null });
      // Its one line (stderr), besides its JSON log lines (stdout).
      expect(proc.lines.filter((l) => !l.startsWith('{'))).toEqual([line()]);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'world up exits 2 naming the refusing replica with its line',
    async () => {
      const run = await runCli(['up', '--quiet'], {
        NATS_URL: nats.url,
        DATABASE_URL: db.url,
        WORLD_SUBJECT_PREFIX: uniquePrefix('up'),
        WORLD_HOME: join(home, 'up'),
        WORLD_BIND: `127.0.0.1:${await freePort()}`,
        WORLD_LOG_LEVEL: 'silent',
      });
      expect([run.code, run.stdout]).toEqual([2, '']);
      const lines = run.stderr.split('\n').filter((l) => l !== '');
      expect(lines).toHaveLength(1);
      const m = /^world: ((?:ledger|broker|planner|gateway)-1) refused to start: (.*)$/.exec(
        lines[0]!,
      );
      expect([m?.[1] !== undefined, m?.[2]]).toEqual([true, line()]);
    },
    E2E_TIMEOUT_MS,
  );
});
