/**
 * The file layout of a World image, proven without a Docker engine: infra/deploy-app.sh (the
 * step infra/Dockerfile runs) writes a production deployment of the ledger, which then starts
 * from that folder alone the way the container does — infra/docker-entrypoint.sh turning
 * DATABASE_URL_FILE into DATABASE_URL, then `node dist/main.js` — against the test PostgreSQL
 * and NATS, finds its drizzle migrations, passes the image's healthcheck, and stops cleanly on
 * SIGTERM.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createTestDatabase, testNatsUrl, uniquePrefix, type TestDatabase } from '@world/testing';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

describe('a production deployment of one service (infra/deploy-app.sh)', () => {
  let dir: string;
  let db: TestDatabase;

  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'apps/ledger/dist/main.js'))) {
      throw new Error(
        'apps/ledger/dist/main.js is missing: build first (pnpm exec turbo run build --filter=@world/ledger...)',
      );
    }
    dir = await mkdtemp(join(tmpdir(), 'world-image-'));
    db = await createTestDatabase('image');
  });
  afterAll(async () => {
    await db.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('holds dist, migrations and production dependencies only, and boots from its own folder', async () => {
    const out = join(dir, 'app');
    const deployed = await new Promise<{ code: number | null; output: string }>(
      (resolve, reject) => {
        const child = spawn('sh', ['infra/deploy-app.sh', 'ledger', out], {
          cwd: ROOT,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let output = '';
        child.stdout.on('data', (b: Buffer) => (output += b.toString('utf8')));
        child.stderr.on('data', (b: Buffer) => (output += b.toString('utf8')));
        child.on('error', reject);
        child.on('exit', (code) => resolve({ code, output }));
      },
    );
    expect(deployed).toMatchObject({ code: 0 });

    // A README is copied when the app has one; nothing else but what runs.
    expect((await readdir(out)).filter((f) => f !== 'README.md').sort()).toEqual([
      'dist',
      'drizzle',
      'node_modules',
      'package.json',
      'pnpm-lock.yaml',
      'pnpm-workspace.yaml',
    ]);
    expect(existsSync(join(out, 'drizzle/meta/_journal.json'))).toBe(true);
    const store = await readdir(join(out, 'node_modules/.pnpm'));
    expect(
      store.filter((p) => /^(jest|typescript|@swc\+core|turbo|eslint|drizzle-kit)@/.test(p)),
    ).toEqual([]);
    expect(
      store
        .filter((p) => p.startsWith('@world+'))
        .map((p) => p.split('@file')[0])
        .sort(),
    ).toEqual(['@world+canonical', '@world+contracts', '@world+runtime', '@world+tlog']);

    const secret = join(dir, 'database_url');
    await writeFile(secret, `${db.url}\n`);
    const child = spawn(
      'sh',
      [join(ROOT, 'infra/docker-entrypoint.sh'), process.execPath, 'dist/main.js'],
      {
        cwd: out,
        env: {
          PATH: process.env.PATH,
          NATS_URL: testNatsUrl(),
          DATABASE_URL_FILE: secret,
          // The log's signing key comes from outside the image, as compose's log_key secret.
          WORLD_LOG_KEY_FILE: join(dir, 'log_key'),
          WORLD_SUBJECT_PREFIX: uniquePrefix('image'),
          WORLD_REPLICA: 'ledger-image',
          WORLD_HEALTH_PORT: '0',
          WORLD_HEALTH_HOST: '127.0.0.1',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const lines: string[] = [];
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal })),
    );
    const ready = new Promise<Record<string, unknown>>((resolve, reject) => {
      const watch = (b: Buffer) => {
        for (const line of b.toString('utf8').split('\n').filter(Boolean)) {
          lines.push(line);
          if (line.includes('"msg":"ready"')) resolve(JSON.parse(line) as Record<string, unknown>);
        }
      };
      child.stdout.on('data', watch);
      child.stderr.on('data', watch);
      void exited.then(() =>
        reject(new Error(`the deployed ledger exited before it was ready:\n${lines.join('\n')}`)),
      );
    });
    try {
      const readyLine = await ready;
      expect(readyLine).toMatchObject({ service: 'ledger', replica: 'ledger-image', msg: 'ready' });
      // The image's HEALTHCHECK command, against the service's own readiness endpoint.
      const probe = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const hc = spawn(process.execPath, [join(ROOT, 'infra/healthcheck.mjs')], {
          env: { PATH: process.env.PATH, WORLD_HEALTH_PORT: String(readyLine.healthPort) },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        hc.stderr.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
        hc.on('exit', (code) => resolve({ code, stderr }));
      });
      expect(probe).toEqual({ code: 0, stderr: '' });
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        const { rows } = await client.query(
          'SELECT count(*)::int AS migrations FROM drizzle.__drizzle_migrations_ledger UNION ALL SELECT count(*)::int FROM ledger.log_entries',
        );
        // Every committed migration applied from the deployed folder, and the genesis entry written.
        expect(rows.map((r: { migrations: number }) => r.migrations)).toEqual([
          (await readdir(join(out, 'drizzle'))).filter((f) => f.endsWith('.sql')).length,
          1,
        ]);
      } finally {
        await client.end();
      }
    } finally {
      if (child.exitCode === null) child.kill('SIGTERM');
    }
    await expect(exited).resolves.toEqual({ code: 0, signal: null });
  });
});
