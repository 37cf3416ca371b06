#!/usr/bin/env node
// `pnpm test`: builds everything, starts a NATS server configured like the deployment
// (infra/nats/nats.conf: max_payload 8 MiB) on a free port unless WORLD_TEST_NATS_URL names one,
// checks that PostgreSQL answers (else, with none configured, starts World's embedded server),
// then runs every package's tests through turbo.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { answers, startScratchNats } from './scratch-nats.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const passthrough = process.argv.slice(2);

async function startNats() {
  if (process.env.WORLD_TEST_NATS_URL) return null;
  const which = spawnSync('sh', ['-c', 'command -v nats-server'], { encoding: 'utf8' });
  const bin = which.stdout.trim();
  if (!bin) {
    console.error(
      'test: nats-server not found; using NATS_URL or nats://127.0.0.1:4222 (default max_payload)',
    );
    return null;
  }
  const nats = await startScratchNats(bin, 'world-test-nats-');
  process.env.WORLD_TEST_NATS_URL = nats.url;
  return () => nats.stop();
}

function run(cmd, args) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, stdio: 'inherit', env: process.env });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

/**
 * Where no PostgreSQL is configured (WORLD_TEST_DATABASE_URL unset) and none answers on
 * 127.0.0.1:5432, the tests run on the server `world start` runs itself (apps/cli's built
 * system/postgres, a cluster under a temporary WORLD_HOME, Unix socket only): one engine for
 * every tier either way.
 */
async function startEmbeddedPostgres() {
  const { startPostgresServer } = await import(
    join(root, 'apps/cli/dist/system/postgres/index.js')
  );
  const home = mkdtempSync(join(tmpdir(), 'world-test-pg-'));
  // Under root the cluster belongs to world-postgres, which must traverse the directory.
  chmodSync(home, 0o711);
  const server = await startPostgresServer({
    home: join(home, 'h'),
    say: (line) => console.error(`test: ${line}`),
  });
  process.env.WORLD_TEST_DATABASE_URL = server.url;
  console.error(`test: no PostgreSQL configured; using World's embedded server (${server.pgdata})`);
  return async () => {
    await server.stop();
    rmSync(home, { recursive: true, force: true });
  };
}

const configured = process.env.WORLD_TEST_DATABASE_URL;
const pgUrl = new URL(configured ?? 'postgres://postgres@127.0.0.1:5432/postgres');
const machinePg = await answers(pgUrl.hostname, Number(pgUrl.port || 5432), 2000);
if (!machinePg && configured !== undefined) {
  console.error(
    `test: PostgreSQL does not answer at ${pgUrl.host}; start it (see README "Tests") or unset WORLD_TEST_DATABASE_URL to use World's embedded server`,
  );
  process.exit(1);
}
const stopNats = await startNats();
let stopPostgres;
let code;
try {
  code = await run('pnpm', ['exec', 'turbo', 'run', 'build', '--output-logs=errors-only']);
  if (code === 0 && !machinePg) stopPostgres = await startEmbeddedPostgres();
  if (code === 0) {
    code = await run('pnpm', [
      'exec',
      'turbo',
      'run',
      'test',
      '--concurrency=1',
      '--output-logs=full',
      ...passthrough,
    ]);
  }
} finally {
  stopNats?.();
  await stopPostgres?.();
}
process.exit(code);
