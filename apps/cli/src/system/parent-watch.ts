/**
 * Preloaded into every service process `world up` starts (`node --import <this file>
 * <service>/dist/main.js`; see PARENT_WATCH_ENTRY in up.ts). Those processes run detached, in
 * process groups of their own, so a terminal's Ctrl-C reaches only `world up`, which stops them
 * in order. Their standard input is a pipe from `world up` that it never writes to: when
 * `world up` dies without stopping them (SIGKILL, a crash), the pipe reaches end-of-file and the
 * process sends itself SIGTERM, the same orderly drain as `world up` would have asked for
 * (a process still starting, with no handler yet, just ends).
 */

/** Sends this process SIGTERM once, when its parent's end of standard input has closed. */
function watchParent(): void {
  const stdin = process.stdin;
  let fired = false;
  const orphaned = () => {
    if (fired) return;
    fired = true;
    process.kill(process.pid, 'SIGTERM');
  };
  stdin.on('end', orphaned);
  stdin.on('close', orphaned);
  stdin.on('error', orphaned);
  stdin.on('data', () => undefined);
  // Reading must not keep the process alive on its own: it ends when the service closes.
  (stdin as unknown as { unref?: () => void }).unref?.();
}

watchParent();
