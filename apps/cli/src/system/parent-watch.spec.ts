import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PARENT_WATCH_URL } from './up.js';

/**
 * A stand-in service: logs "ready", turns SIGTERM into "drained" and exit 0, as closeOnSignal
 * does. Started the way spawnService starts the real ones (the preload, detached, stdin a pipe).
 */
const SERVICE = [
  "process.on('SIGTERM', () => { console.log('drained'); process.exit(0); });",
  "console.log('ready');",
  'setInterval(() => undefined, 1000);',
].join('\n');

function startStandIn() {
  const child = spawn(process.execPath, ['--import', PARENT_WATCH_URL, '-e', SERVICE], {
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const ready = new Promise<void>((resolve) => {
    const poll = setInterval(() => {
      if (out.includes('ready')) {
        clearInterval(poll);
        resolve();
      }
    }, 20);
  });
  return { child, exited, ready, out: () => out };
}

// QA item: `world up` starts its services in process groups of their own (so a terminal's
// Ctrl-C reaches only `world up`, which stops them in order), so they must end themselves
// when `world up` dies without stopping them.
describe('parent-watch (the preload of every `world up` service process)', () => {
  it('is built where spawnService points node --import', () => {
    expect(PARENT_WATCH_URL.endsWith('/apps/cli/dist/system/parent-watch.js')).toBe(true);
    expect(existsSync(fileURLToPath(PARENT_WATCH_URL))).toBe(true);
  });

  it('turns the end of its stdin (the parent gone) into SIGTERM: the service drains and exits 0', async () => {
    const s = startStandIn();
    await s.ready;
    s.child.stdin!.end();
    expect(await s.exited).toEqual({ code: 0, signal: null });
    expect(s.out()).toBe('ready\ndrained\n');
  });

  it('runs in a process group of its own and keeps running while its parent lives', async () => {
    const s = startStandIn();
    await s.ready;
    // A detached child leads its own group: signalling the group reaches it and only it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(s.child.exitCode).toBeNull();
    process.kill(-s.child.pid!, 'SIGTERM');
    expect(await s.exited).toEqual({ code: 0, signal: null });
    expect(s.out()).toBe('ready\ndrained\n');
  });
});
