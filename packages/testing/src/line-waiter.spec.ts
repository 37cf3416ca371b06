import { spawn } from 'node:child_process';
import { watchLines } from './line-waiter.js';

/**
 * A node child that prints `lines` (the last one on stderr if `lastOnStderr`) and exits with
 * `code` only once its stdin is closed, so every line is read before it exits.
 */
function printer(lines: string[], code = 0, lastOnStderr = false) {
  const print = (l: string, i: number) =>
    `console.${lastOnStderr && i === lines.length - 1 ? 'error' : 'log'}(${JSON.stringify(l)})`;
  const script =
    lines.map(print).join(';') +
    `;process.stdin.resume();process.stdin.on('end',()=>process.exit(${code}))`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'pipe'] });
  return { child, exit: () => child.stdin.end() };
}

describe('watchLines', () => {
  it('resolves with the first matching line, and keeps the latest lines', async () => {
    const { child, exit } = printer(['one', 'ready on 7', 'three', 'four']);
    const watch = watchLines(child, 'p', 3);
    await expect(watch.waitForLine(/^ready on \d+$/, 10_000)).resolves.toBe('ready on 7');
    await expect(watch.waitForLine(/^four$/, 10_000)).resolves.toBe('four');
    expect(watch.lines).toEqual(['ready on 7', 'three', 'four']);
    expect(watch.exit).toBeUndefined();
    exit();
    await watch.exited;
    expect(watch.exit).toEqual({ code: 0, signal: null });
  });

  it('reads stderr as well as stdout', async () => {
    const { child, exit } = printer(['out', 'err'], 0, true);
    const watch = watchLines(child, 'p');
    await expect(watch.waitForLine(/^err$/, 10_000)).resolves.toBe('err');
    exit();
    await watch.exited;
  });

  it('rejects when the process exits before the line, naming it and its last output', async () => {
    const { child, exit } = printer(['starting', 'failed: no database'], 2);
    const watch = watchLines(child, 'broker (pid 1)');
    const ready = watch.waitForLine(/^ready/, 10_000);
    await watch.waitForLine(/^failed/, 10_000);
    exit();
    await expect(ready).rejects.toThrow(
      'broker (pid 1) exited (code 2, signal null) before logging /^ready/; last output:\nstarting\nfailed: no database',
    );
  });
});
