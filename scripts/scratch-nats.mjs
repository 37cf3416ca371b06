// A scratch JetStream NATS server configured like the deployment (infra/nats/nats.conf:
// max_payload 8 MiB) on a free loopback port, its store in a fresh temporary directory: what
// `pnpm test` (scripts/test.mjs) and the transparency-log bench (bench/tlog.mjs) start when no
// NATS URL is given.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// How long a started server gets to answer on its port: 100 tries, 50 ms apart.
const READY_TRIES = 100;
const READY_PAUSE_MS = 50;

/** A TCP port that was free a moment ago on 127.0.0.1. */
function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * Whether a TCP connection to host:port opens within timeoutMs.
 * @internal exported for scripts/test.mjs (the PostgreSQL check of `pnpm test`)
 */
export function answers(host, port, timeoutMs = 300) {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.on('connect', () => done(true));
    socket.on('error', () => done(false));
  });
}

/**
 * Starts `bin` (nats-server) with the repository's config on a free port and waits until the
 * port answers (at most READY_TRIES × READY_PAUSE_MS).
 * @param {string} bin the nats-server executable
 * @param {string} storePrefix the temporary store directory's name prefix
 * @returns {Promise<{ url: string, stop(): void }>} stop() kills the server and removes its store
 */
export async function startScratchNats(bin, storePrefix) {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), storePrefix));
  const args = ['-c', join(root, 'infra/nats/nats.conf'), '-a', '127.0.0.1', '-p', String(port)];
  const child = spawn(bin, [...args, '-js', '-sd', dir], { stdio: 'ignore' });
  for (let i = 0; i < READY_TRIES; i++) {
    if (await answers('127.0.0.1', port)) break;
    await new Promise((r) => setTimeout(r, READY_PAUSE_MS));
  }
  return {
    url: `nats://127.0.0.1:${port}`,
    stop() {
      child.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
