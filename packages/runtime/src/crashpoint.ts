/**
 * Named crash points for crash tests (DESIGN.md §6): when WORLD_CRASHPOINT names this point,
 * the process kills itself with SIGKILL right here, as a power cut would. When WORLD_PAUSEPOINT
 * names it, the process stops itself with SIGSTOP here the first time it gets here, as a stalled
 * machine would (whatever it holds — an open transaction, its row locks — stays held), and goes
 * on from here once it is sent SIGCONT; later passes do not stop.
 * Points: `after-intent`, `after-handler`, `before-outcome`, `inside-commit`.
 */
export type CrashPoint = 'after-intent' | 'after-handler' | 'before-outcome' | 'inside-commit';

/** Whether this process has stopped at its WORLD_PAUSEPOINT already. */
let paused = false;

export function crashpoint(name: CrashPoint): void {
  if (process.env.WORLD_CRASHPOINT === name) {
    process.kill(process.pid, 'SIGKILL');
  }
  if (process.env.WORLD_PAUSEPOINT === name && !paused) {
    paused = true;
    process.kill(process.pid, 'SIGSTOP');
  }
}

/**
 * Whether WORLD_CRASHPOINT or WORLD_PAUSEPOINT arms this point in this process (tests). A path
 * that cannot place the point where it is defined — the ledger's one-statement commit cannot
 * stop between the journal check and the writes — steps aside while it is armed, so the point
 * keeps its meaning.
 */
export function crashpointArmed(name: CrashPoint): boolean {
  return process.env.WORLD_CRASHPOINT === name || process.env.WORLD_PAUSEPOINT === name;
}
