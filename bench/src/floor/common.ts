/**
 * What every process of the floor shares (issue 19 "The floor in `pnpm bench`"): its subjects,
 * its NATS connection and PostgreSQL pool made the plain way with the libraries World uses
 * (@nats-io/transport-node, pg), the ready line the harness waits for, and a clean stop. No
 * World code: the floor is what the design makes every call do, written bare.
 *
 * Environment of a floor process: NATS_URL, FLOOR_PREFIX (its subjects' prefix) and, for the
 * broker and the ledger, DATABASE_URL.
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import pg from 'pg';

/** The floor's subjects under its prefix: the three request-replies and the release event. */
export const FLOOR_SUBJECTS = {
  invoke: 'planner.invoke',
  execute: 'broker.execute',
  commit: 'ledger.commit',
  release: 'broker.release',
} as const;

/** A request-reply's timeout, ms (the planner's share of a call, as World's default). */
const FLOOR_REQUEST_MS = 10_000;

/** Connections per pool: World's openPostgres default. */
const FLOOR_POOL_MAX = 10;

/**
 * The session setting World's connections start with (a statement of a dead client is
 * cancelled within 50 ms); the floor pays what World's durable writes pay.
 */
const SESSION_OPTIONS = '-c client_connection_check_interval=50';

/** A required environment variable. @throws Error naming it when it is unset */
export function env(name: string): string {
  const v = process.env[name];
  if (v === undefined || v === '') throw new Error(`floor: ${name} is required`);
  return v;
}

/** `<FLOOR_PREFIX>.<subject>` */
export function subject(name: keyof typeof FLOOR_SUBJECTS): string {
  return `${env('FLOOR_PREFIX')}.${FLOOR_SUBJECTS[name]}`;
}

/** Connects to NATS_URL, named after the role. */
export function natsConnect(role: string): Promise<NatsConnection> {
  return connect({ servers: [env('NATS_URL')], name: `floor-${role}` });
}

/** A pool on DATABASE_URL, sized and configured as World's. */
export function pgPool(role: string): pg.Pool {
  const pool = new pg.Pool({
    connectionString: env('DATABASE_URL'),
    max: FLOOR_POOL_MAX,
    application_name: `floor-${role}`,
    options: SESSION_OPTIONS,
  });
  pool.on('error', (err) => process.stderr.write(`floor-${role}: idle client: ${err.message}\n`));
  return pool;
}

/** JSON of a message's payload. */
export function decode<T>(data: Uint8Array): T {
  return JSON.parse(
    Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8'),
  ) as T;
}

/**
 * One request-reply of the floor: the body as JSON, FLOOR_REQUEST_MS to answer, the reply's JSON.
 * @throws the NATS request error (timeout, no responders)
 */
export async function requestJson<Req, Rep>(
  nc: NatsConnection,
  subject: string,
  body: Req,
): Promise<Rep> {
  return decode<Rep>(
    (await nc.request(subject, JSON.stringify(body), { timeout: FLOOR_REQUEST_MS })).data,
  );
}

/** Logs the ready line (`{"msg":"ready",…}`) and stops cleanly on SIGTERM/SIGINT. */
export function serve(
  role: string,
  extra: Record<string, unknown>,
  close: () => Promise<void>,
): void {
  process.stdout.write(`${JSON.stringify({ msg: 'ready', role, pid: process.pid, ...extra })}\n`);
  const stop = () =>
    void close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`floor-${role}: close failed: ${String(err)}\n`);
        process.exit(1);
      },
    );
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

/** True when this module's file is the process entry. */
export function isEntry(moduleUrl: string): boolean {
  return process.argv[1] !== undefined && moduleUrl === new URL(`file://${process.argv[1]}`).href;
}

/** Runs a process entry, exiting 2 with the message when it fails to start. */
export function runEntry(role: string, start: () => Promise<void>): void {
  start().catch((err: unknown) => {
    process.stderr.write(`floor-${role}: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(2);
  });
}
