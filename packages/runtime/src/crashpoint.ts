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
