import { safeKill } from './process.js';
import { eventually, uniquePrefix } from './env.js';

describe('safeKill (world-internals §12 incident 14: never kill(-1) or ourselves)', () => {
  it.each([-1, 0, 1, process.pid, process.ppid, 1.5])('refuses pid %s', (pid) => {
    expect(() => safeKill(pid, 'SIGKILL')).toThrow(`refusing to signal pid ${pid}`);
  });
});

describe('uniquePrefix and eventually', () => {
  it('makes NATS-safe prefixes that differ', () => {
    const a = uniquePrefix('my test');
    expect(a).toMatch(/^my-test-[0-9a-f]{12}$/);
    expect(uniquePrefix('my test')).not.toBe(a);
  });

  it('polls until a value arrives, and names what it waited for when it does not', async () => {
    let n = 0;
    await expect(eventually(() => (++n >= 3 ? n : undefined), 1_000)).resolves.toBe(3);
    await expect(eventually(() => undefined, 100, 'nothing')).rejects.toThrow(
      'timed out waiting for nothing',
    );
  });
});
