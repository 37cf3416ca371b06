import type { NatsConnection } from '@nats-io/transport-node';
import {
  COMMIT_MESSAGE_MAX_BYTES,
  NATS_MAX_PAYLOAD_BYTES,
  ServiceUnavailableError,
} from '@world/contracts';
import { ConfigError } from './config.js';
import { logger } from './logger.js';
import type { RpcClient } from './rpc.js';

/**
 * Refuses a NATS server whose `max_payload` (from its INFO at connect) is below what World's
 * largest commit needs (COMMIT_MESSAGE_MAX_BYTES): on such a server an effect could run and
 * then its commit be refused by the bus (DESIGN.md §1; ecosystem §8 "The machine's own NATS").
 * Every service connects through here, so each one exits 2 with this line before it serves.
 * @param nc a connected connection (closed here before the throw)
 * @param url the server's URL, for the message
 * @throws ConfigError `NATS max_payload is <n> bytes at <url>; World needs at least <m> …`
 */
export async function assertMaxPayload(nc: NatsConnection, url: string): Promise<void> {
  const maxPayload = nc.info?.max_payload;
  if (maxPayload === undefined || maxPayload >= COMMIT_MESSAGE_MAX_BYTES) return;
  await nc.close().catch(() => undefined);
  throw new ConfigError(maxPayloadProblem(maxPayload, url));
}

/** The one line a service prints when the server's max_payload is too small (assertMaxPayload). */
export function maxPayloadProblem(maxPayload: number, url: string): string {
  return (
    `NATS max_payload is ${maxPayload} bytes at ${url}; World needs at least ` +
    `${COMMIT_MESSAGE_MAX_BYTES} (its largest commit message, COMMIT_MESSAGE_MAX_BYTES): ` +
    `set max_payload: ${NATS_MAX_PAYLOAD_BYTES} in the server's configuration (infra/nats/nats.conf)`
  );
}

/**
 * Whether the NATS server a connection is on now can carry World's largest commit
 * (COMMIT_MESSAGE_MAX_BYTES). A service refuses to start on a server whose max_payload is below
 * it (assertMaxPayload, exit 2), but a connection reconnects on its own: the server may have been
 * restarted with a smaller limit (its INFO after the reconnect says so), and an effect run then
 * could not be committed. The connection's current INFO is read at each call, so the answer
 * follows every reconnect; null when it fits (or before any INFO).
 * @param nc the connection
 * @param describe the line naming the setting (maxPayloadProblem)
 */
export function maxPayloadShortfall(
  nc: NatsConnection,
  describe: (maxPayload: number) => string,
): string | null {
  const maxPayload = nc.info?.max_payload;
  return maxPayload === undefined || maxPayload >= COMMIT_MESSAGE_MAX_BYTES
    ? null
    : describe(maxPayload);
}

/**
 * Logs, once per change, that a reconnect landed on a server whose max_payload cannot carry a
 * commit (and that work resumes when it can again), for the operator: while it lasts the
 * planner and the broker refuse calls (refuseUnfitBus).
 * @param nc the connection (its status events end when it closes)
 * @param problem reads the current shortfall (maxPayloadShortfall)
 */
export function watchMaxPayload(nc: NatsConnection, problem: () => string | null): void {
  let reported: string | null = null;
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type !== 'reconnect') continue;
      const now = problem();
      if (now !== null && now !== reported)
        logger.error(
          { problem: now },
          'NATS reconnected to a server too small for a commit; refusing calls',
        );
      else if (now === null && reported !== null)
        logger.info('NATS max_payload carries a commit again; taking calls');
      reported = now;
    }
  })().catch(() => undefined);
}

/**
 * Refuses work before any effect runs while the bus cannot carry a commit (RpcClient
 * commitFitProblem; DESIGN.md §1 "an effect whose commit could not fit on the bus never runs").
 * The caller sees the host error of an unavailable daemon (MCP `-32603 host callback failed`,
 * A2A `-32603 transition invocation is not available in this daemon`; nothing is claimed or
 * spent, so the same call may be sent again once the server is fixed).
 * @throws ServiceUnavailableError naming the setting
 */
export function refuseUnfitBus(rpc: RpcClient): void {
  const problem = rpc.commitFitProblem?.() ?? null;
  if (problem !== null) throw new ServiceUnavailableError(problem);
}
