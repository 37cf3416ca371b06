import type { ChildProcess } from 'node:child_process';

/** How a watched process ended. */
export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A child's output, line by line, and a way to wait for one line (watchLines). */
export interface LineWatch {
  /** the lines seen so far (stdout and stderr interleaved), at most `keep` of the latest */
  lines: string[];
  /** how the process ended, once it has */
  exit: ExitStatus | undefined;
  /** resolves when the process has exited */
  exited: Promise<ExitStatus>;
  /**
   * Resolves with the first line matching `pattern` (one already seen, or the next), or rejects
   * after `timeoutMs` or when the process exits first; the error names the process and ends with
   * the lines kept.
   */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<string>;
}

/**
 * Watches a child spawned with piped stdout and stderr: splits both into lines (empty ones
 * dropped), keeps them, and hands each to the waiters whose pattern it matches. Shared by the
 * test harness (startNode) and the bench (startProcess), which wait for the same ready lines.
 * @param label names the process in errors (`gateway (pid 123)`)
 * @param keep how many of the latest lines to keep (default all)
 */
export function watchLines(
  child: ChildProcess,
  label: string,
  keep: number = Number.POSITIVE_INFINITY,
): LineWatch {
  const lines: string[] = [];
  const waiters: Array<{ pattern: RegExp; resolve: (line: string) => void }> = [];
  const onData = (buf: Buffer) => {
    for (const line of buf.toString('utf8').split('\n')) {
      if (line === '') continue;
      lines.push(line);
      if (lines.length > keep) lines.shift();
      for (const w of [...waiters]) {
        if (w.pattern.test(line)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
      }
    }
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const watch: LineWatch = {
    lines,
    exit: undefined,
    exited: new Promise<ExitStatus>((resolve) =>
      child.on('exit', (code, signal) => {
        watch.exit = { code, signal };
        resolve(watch.exit);
      }),
    ),
    waitForLine(pattern, timeoutMs) {
      const seen = lines.find((l) => pattern.test(l));
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const fail = (why: string) =>
          reject(new Error(`${label} ${why}; last output:\n${lines.join('\n')}`));
        const timer = setTimeout(
          () => fail(`logged no line matching ${pattern} within ${timeoutMs} ms`),
          timeoutMs,
        );
        waiters.push({
          pattern,
          resolve: (line) => {
            clearTimeout(timer);
            resolve(line);
          },
        });
        void watch.exited.then(({ code, signal }) => {
          clearTimeout(timer);
          fail(`exited (code ${code}, signal ${signal}) before logging ${pattern}`);
        });
      });
    },
  };
  return watch;
}
