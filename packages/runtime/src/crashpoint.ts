/**
 * Named crash points for crash tests (DESIGN.md §6): when WORLD_CRASHPOINT names this point,
 * the process kills itself with SIGKILL right here, as a power cut would.
 * Points: `after-intent`, `after-handler`, `before-outcome`, `inside-commit`.
 */
export type CrashPoint = 'after-intent' | 'after-handler' | 'before-outcome' | 'inside-commit';

export function crashpoint(name: CrashPoint): void {
  if (process.env.WORLD_CRASHPOINT === name) {
    process.kill(process.pid, 'SIGKILL');
  }
}

/**
 * Whether WORLD_CRASHPOINT arms this point in this process (tests). A path that cannot place the
 * point where it is defined — the ledger's one-statement commit cannot stop between the journal
 * check and the writes — steps aside while it is armed, so the point keeps its meaning.
 */
export function crashpointArmed(name: CrashPoint): boolean {
  return process.env.WORLD_CRASHPOINT === name;
}
