/**
 * `world workbench [--session] [--open]` as a real process against a real World (embedded mode),
 * and the bound of POST /agui: AGUI_MAX_STREAMS streams open, the next is 503 with Retry-After
 * (README "The workbench").
 */
import { chmod, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireBuiltCli, runCli } from '../support/cli.js';
import { FULL_GRANTS, startTestSystem, type TestSystem } from '../support/system.js';

const E2E_TIMEOUT_MS = 180_000;
/** The gateway's AGUI_MAX_STREAMS and AGUI_RETRY_AFTER_S (apps/gateway/src/workbench/agui.ts). */
const MAX_STREAMS = 64;
const RETRY_AFTER_S = '5';

describe('world workbench and the AG-UI stream bound (embedded mode)', () => {
  let w: TestSystem;
  let session: string;
  const loginLine = (url: string) =>
    new RegExp(`^${url.replace(/[.]/g, '\\.')}/workbench/login\\?ticket=[A-Za-z0-9_-]{40,}\\n$`);

  /** Exchanges the printed URL: the login cookie, and the page's "who" it opens on. */
  async function exchange(printed: string): Promise<{ cookie: string; who: string }> {
    const res = await fetch(printed.trim(), { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/workbench');
    const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
    const page = await fetch(`${w.url}/workbench`, { headers: { cookie } });
    expect(page.status).toBe(200);
    const who = /<span class="who">([^<]*)<\/span>/.exec(await page.text())![1]!;
    return { cookie, who };
  }

  beforeAll(async () => {
    requireBuiltCli();
    w = await startTestSystem('embedded', { agui: { runMs: 120_000, heartbeatMs: 1000 } });
    await w.episode('wbc', { 'a.txt': 'a\n' });
    session = await w.session('wbc', FULL_GRANTS);
  }, E2E_TIMEOUT_MS);

  afterAll(async () => {
    await w?.close();
  }, E2E_TIMEOUT_MS);

  it(
    'prints one login URL for the operator; it works once',
    async () => {
      const r = await runCli(['workbench'], {
        WORLD_URL: w.url,
        WORLD_OPERATOR_TOKEN: w.operatorToken,
      });
      expect([r.code, r.stderr]).toEqual([0, '']);
      expect(r.stdout).toMatch(loginLine(w.url));
      expect(r.stdout.includes(w.operatorToken)).toBe(false);
      expect((await exchange(r.stdout)).who).toBe('operator');
      const again = await fetch(r.stdout.trim(), { redirect: 'manual' });
      expect(again.status).toBe(401);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    "--session <token file> prints a login URL of that session's episode",
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'world-session-'));
      const file = join(dir, 'session.token');
      await writeFile(file, `${session}\n`, { mode: 0o600 });
      const r = await runCli(['workbench', '--session', file], { WORLD_URL: w.url });
      expect([r.code, r.stderr]).toEqual([0, '']);
      expect(r.stdout).toMatch(loginLine(w.url));
      expect((await exchange(r.stdout)).who).toBe('session of episode wbc');
    },
    E2E_TIMEOUT_MS,
  );

  it(
    '--open prints the URL and hands the same URL to the desktop opener',
    async () => {
      const bin = await mkdtemp(join(tmpdir(), 'world-opener-'));
      const opened = join(bin, 'opened.txt');
      // xdg-open found first on PATH: a real program that records what it was asked to open
      await writeFile(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$@" > "${opened}"\n`);
      await chmod(join(bin, 'xdg-open'), 0o755);
      const r = await runCli(['workbench', '--open'], {
        WORLD_URL: w.url,
        WORLD_OPERATOR_TOKEN: w.operatorToken,
        PATH: `${bin}:${process.env.PATH}`,
      });
      expect([r.code, r.stderr]).toEqual([0, '']);
      expect(r.stdout).toMatch(loginLine(w.url));
      let text = '';
      for (let n = 0; n < 100 && text === ''; n += 1) {
        text = await readFile(opened, 'utf8').catch(() => '');
        if (text === '') await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(text).toBe(r.stdout);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    `${MAX_STREAMS} AG-UI streams open; the next is 503 with Retry-After, and a slot frees when one ends`,
    async () => {
      const post = (signal?: AbortSignal) =>
        fetch(`${w.url}/agui`, {
          method: 'POST',
          signal,
          // the operator's: a session holds at most AGUI_MAX_STREAMS_PER_CREDENTIAL (16)
          headers: {
            authorization: `Bearer ${w.operatorToken}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify({
            threadId: 't',
            runId: 'r',
            state: {},
            messages: [],
            tools: [],
            context: [],
          }),
        });
      const stops = Array.from({ length: MAX_STREAMS }, () => new AbortController());
      const open = await Promise.all(stops.map((s) => post(s.signal)));
      expect(open.map((r) => r.status)).toEqual(Array(MAX_STREAMS).fill(200));
      const full = await post();
      expect(full.status).toBe(503);
      expect(full.headers.get('retry-after')).toBe(RETRY_AFTER_S);
      expect(await full.json()).toEqual({
        error: {
          class: 'Unavailable',
          message: `${MAX_STREAMS} AG-UI streams are open; retry later`,
        },
      });
      stops[0]!.abort();
      let next = 503;
      for (let n = 0; n < 100 && next === 503; n += 1) {
        const r = await post(stops[1]!.signal).catch(() => null);
        next = r?.status ?? 503;
        if (next === 503) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(next).toBe(200);
      for (const s of stops) s.abort();
    },
    E2E_TIMEOUT_MS,
  );
});
