/**
 * Drives one episode's spend counter and effect intents up to "call 10,000" (issue 7) through
 * direct `broker.effect.execute` requests on the run's NATS prefix — the broker's real tx1
 * (decide, spend += 1, intent), the real read handler and tx2 (record, outcome) — without the
 * gateway, the planner or a commit, so the log does not grow while the episode does. The
 * harness takes the episode's lease once, executes under its fence, and releases it.
 */
import type { RpcClient } from '@world/runtime';
import { FILE_NAME, HARNESS_REQUEST_MS, PUMP_HANDLER_MS, PUMP_LEASE_MS } from '../config.js';

/** Executes in flight at once (they serialize on the episode row; this only hides the hop). */
const PUMP_IN_FLIGHT = 4;
const HOLDER = 'bench-pump';

/**
 * Runs `count` Workspace.Read effects for the episode under the session `credentialId`.
 * @throws the first refusal or failure (a pumped effect must be allowed and succeed)
 */
export async function pumpEpisode(
  rpc: RpcClient,
  episodeId: string,
  credentialId: string,
  count: number,
): Promise<void> {
  if (count <= 0) return;
  const effect = {
    id: 'e1',
    effect: 'Workspace.Read',
    scope: 'worktree',
    cost: 1,
    payload: { op: 'read', path: FILE_NAME },
  };
  const base = (n: number) => ({
    invocationId: `mcp:${episodeId}:pump-${n}`,
    credentialId,
    episodeId,
    now: Date.now(),
    effect,
    handlerMs: PUMP_HANDLER_MS,
  });
  const check = (status: string, n: number) => {
    if (status !== 'ok') throw new Error(`pumped effect ${n} of ${episodeId} answered ${status}`);
  };
  const first = await rpc.request(
    'broker.effect.execute',
    { ...base(0), acquire: { holder: HOLDER, ttlMs: PUMP_LEASE_MS, waitMs: HARNESS_REQUEST_MS } },
    { timeoutMs: HARNESS_REQUEST_MS * 2 },
  );
  check(first.status, 0);
  const fence = first.fence;
  try {
    let issued = 1;
    const worker = async () => {
      while (issued < count) {
        const n = issued++;
        const reply = await rpc.request(
          'broker.effect.execute',
          { ...base(n), fence },
          { timeoutMs: HARNESS_REQUEST_MS },
        );
        check(reply.status, n);
      }
    };
    await Promise.all(Array.from({ length: PUMP_IN_FLIGHT }, worker));
  } finally {
    await rpc.request(
      'broker.episode.release',
      { episodeId, holder: HOLDER, fence },
      { timeoutMs: HARNESS_REQUEST_MS },
    );
  }
}
