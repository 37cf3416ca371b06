import type pg from 'pg';
import { logger } from './logger.js';

/**
 * How long (ms) a LISTEN connection that failed waits before it listens again: short, because
 * listening again is also how a listener learns that the server answers again (`onRestored`).
 */
const LISTEN_RETRY_MS = 100;

/**
 * LISTEN on a connection of its own that outlives a server restart: when the connection fails
 * (the server died or restarted: `world start` restarts its own), it is dropped and a new one
 * listens after LISTEN_RETRY_MS, again until one succeeds. Notifications sent while no connection
 * listens are lost; World's listeners also poll (a lost one only delays a waiter). Without this
 * the failed connection's 'error' event had no handler and ended the process.
 * @param onRestored called each time listening resumed after a failed connection (not after
 *   the first LISTEN): the server answers again, possibly a new one after a crash, whose
 *   recovery dropped the transactions committed asynchronously just before it
 * @returns stops listening (UNLISTEN, releases the connection)
 * @throws the first connection's error (the database does not answer at start)
 */
export async function listenResilient(
  pool: pg.Pool,
  channel: string,
  listener: (payload: string) => void,
  onRestored?: () => void,
): Promise<() => Promise<void>> {
  const quoted = `"${channel.replace(/"/g, '')}"`;
  let current: { client: pg.PoolClient; drop: (err?: Error) => void } | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const again = () => {
    if (stopped || retry !== undefined) return;
    retry = setTimeout(() => {
      retry = undefined;
      connect().then(() => {
        if (stopped) return;
        try {
          onRestored?.();
        } catch (err) {
          logger.warn({ err, channel }, 'LISTEN restored: its callback failed');
        }
      }, again);
    }, LISTEN_RETRY_MS);
    retry.unref();
  };
  const connect = async (): Promise<void> => {
    const client = await pool.connect();
    let released = false;
    const drop = (err?: Error) => {
      if (released) return;
      released = true;
      if (current?.client === client) current = undefined;
      // A failed connection is destroyed, not returned to the pool.
      client.release(err);
    };
    client.on('notification', (n) => {
      if (n.channel === channel) listener(n.payload ?? '');
    });
    client.on('error', (err) => {
      logger.warn({ err, channel }, 'LISTEN connection failed; listening again');
      drop(err);
      again();
    });
    try {
      await client.query(`LISTEN ${quoted}`);
    } catch (err) {
      drop(err as Error);
      throw err;
    }
    if (stopped) drop();
    else current = { client, drop };
  };
  await connect();
  return async () => {
    stopped = true;
    if (retry !== undefined) clearTimeout(retry);
    const held = current;
    if (held === undefined) return;
    await held.client.query(`UNLISTEN ${quoted}`).catch(() => undefined);
    held.drop();
  };
}
