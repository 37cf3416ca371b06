import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './env.js';

/** A nats-server a test started on a free loopback port; stop() ends it and removes its store. */
export interface TestNatsServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(300, () => done(false));
    socket.on('connect', () => done(true));
    socket.on('error', () => done(false));
  });
}

/**
 * Starts the machine's `nats-server` with JetStream on a free loopback port, with the given
 * extra arguments (e.g. `-c infra/nats/nats.conf`; none = the server's defaults, among them the
 * 1 MiB max_payload), and waits until it accepts connections.
 * @param port the port to listen on (default a free one; a restart passes its predecessor's, so
 *   clients reconnect to the new server)
 * @throws when nats-server is not installed or does not answer within 5 s
 */
export async function startNatsServer(args: string[] = [], port?: number): Promise<TestNatsServer> {
  const bin = spawnSync('sh', ['-c', 'command -v nats-server'], { encoding: 'utf8' }).stdout.trim();
  if (bin === '') throw new Error('nats-server is not installed (apt-get install nats-server)');
  port ??= await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'world-test-nats-'));
  const child = spawn(bin, [...args, '-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir], {
    stdio: 'ignore',
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    await rm(dir, { recursive: true, force: true });
  };
  for (let i = 0; i < 100; i++) {
    if (await answers(port)) return { url: `nats://127.0.0.1:${port}`, port, stop };
    await new Promise((r) => setTimeout(r, 50));
  }
  await stop();
  throw new Error(`nats-server did not answer on port ${port}`);
}
