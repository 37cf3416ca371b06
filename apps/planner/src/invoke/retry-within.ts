import { ServiceUnavailableError, TransportTimeoutError } from '@world/contracts';

/** First pause between two attempts; it doubles up to RETRY_PAUSE_MAX_MS. */
const RETRY_PAUSE_MIN_MS = 50;
/** Longest pause between two attempts (a restarting service is back within a few of them). */
const RETRY_PAUSE_MAX_MS = 500;

/** True for the failures a resend may cure: no service answered, or its answer did not arrive. */
export function isTransient(err: unknown): boolean {
  return err instanceof ServiceUnavailableError || err instanceof TransportTimeoutError;
}

/**
 * Runs `attempt` until it answers, retrying on "no responders" (ServiceUnavailableError) and
 * transport timeouts (TransportTimeoutError) while time remains before `deadline`; any other
 * error is thrown at once. Only for requests that are idempotent by their own key (a commit by
 * its invocation id, a release by its holder and fence): a resend of one that landed answers
 * what the first did, so a retry after a lost reply never runs or records twice (DESIGN.md §2).
 * @param deadline epoch ms after which no attempt starts
 * @param attempt one request, given the time it may take (ms, ≥ 1, ≤ attemptMaxMs)
 * @param attemptMaxMs the longest one attempt may wait for its answer
 * @returns the first answer
 * @throws the last transient error once the deadline passed, or the first other error
 */
export async function retryWithin<T>(
  deadline: number,
  attemptMaxMs: number,
  attempt: (timeoutMs: number) => Promise<T>,
): Promise<T> {
  let pause = RETRY_PAUSE_MIN_MS;
  for (;;) {
    const timeoutMs = Math.max(1, Math.min(attemptMaxMs, deadline - Date.now()));
    try {
      return await attempt(timeoutMs);
    } catch (err) {
      if (!isTransient(err) || Date.now() + pause >= deadline) throw err;
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(pause * 2, RETRY_PAUSE_MAX_MS);
  }
}
