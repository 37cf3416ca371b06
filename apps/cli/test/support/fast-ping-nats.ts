/**
 * A NATS server of a suite's own that drops a stopped (SIGSTOPped) client within seconds, so the
 * queue group of the stopped replica's subjects is left to the other replicas — as a deployment
 * with a short ping interval would — and how many connections subscribe to a subject, read from
 * the server's monitoring endpoint (`/connz`).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startNatsServer } from '@world/testing';

/** A running fast-ping NATS server. */
export interface FastPingNats {
  /** the `nats://` URL every process and the test's own clients use */
  url: string;
  /** How many open connections subscribe to `subject` (the full subject, prefix included). */
  subscribers(subject: string): Promise<number>;
  /** Stops the server and removes its configuration. */
  stop(): Promise<void>;
}

/**
 * The deployment's limits (infra/nats/nats.conf) with a short stale-client check: a client that
 * answers none of three pings one second apart is closed.
 */
const natsConf = (monitorPort: number) => `max_payload: 8388608
max_pending: 67108864
ping_interval: "1s"
ping_max: 3
http_port: ${monitorPort}
jetstream {
  max_memory_store: 268435456
}
`;

/**
 * Starts the machine's nats-server with natsConf on free loopback ports.
 * @throws what startNatsServer throws (not installed, not answering)
 */
export async function startFastPingNats(): Promise<FastPingNats> {
  const monitorPort = await freePort();
  const monitor = `http://127.0.0.1:${monitorPort}`;
  const confDir = await mkdtemp(join(tmpdir(), 'world-fast-ping-nats-'));
  await writeFile(join(confDir, 'nats.conf'), natsConf(monitorPort));
  const nats = await startNatsServer(['-c', join(confDir, 'nats.conf')]).catch(async (err) => {
    await rm(confDir, { recursive: true, force: true });
    throw err;
  });
  return {
    url: nats.url,
    async subscribers(subject) {
      const connz = (await (await fetch(`${monitor}/connz?subs=1&limit=1024`)).json()) as {
        connections: Array<{ subscriptions_list?: string[] }>;
      };
      return connz.connections.filter((c) => c.subscriptions_list?.includes(subject)).length;
    },
    async stop() {
      await nats.stop();
      await rm(confDir, { recursive: true, force: true });
    },
  };
}
