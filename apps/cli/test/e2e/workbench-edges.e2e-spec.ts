/**
 * The workbench's edges (README "The workbench"), against an embedded World and Debian's
 * headless Chromium: a filtered timeline stays live and inserts only the rows its filters match
 * (the live clock in UTC, whatever the browser's time zone); GET /workbench/rows applies the
 * page's filters and the session's visibility; array- or object-shaped query parameters and
 * `limit=0` are 400; every /workbench response carries the security headers (404s too); an
 * overwrite says its before content is not recorded; a large write renders a bounded change;
 * AG-UI admits a burst exactly up to its bounds and ends a revoked session's stream.
 */
import { credentialIdOf } from '@world/contracts';
import pg from 'pg';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { FULL_GRANTS, startTestSystem, type TestSystem } from '../support/system.js';
import { CHROMIUM, WORKBENCH_CSP, workbenchLogin } from '../support/workbench.js';

const E2E_TIMEOUT_MS = 300_000;

describe('workbench edges (embedded mode)', () => {
  let w: TestSystem;
  let browser: Browser;
  let a: string;
  let b: string;
  let first: number;

  const squash = (text: string | null) => (text ?? '').replace(/\s+/g, ' ').trim();
  const get = (path: string, token: string | null = w.operatorToken) =>
    fetch(`${w.url}${path}`, {
      headers: token === null ? {} : { authorization: `Bearer ${token}` },
    });
  /** The data-index of each row GET /workbench/rows answers, in its order. */
  const rowIndexes = async (path: string, token: string) => {
    const res = await get(path, token);
    expect(res.status).toBe(200);
    return [...(await res.text()).matchAll(/<tr data-index="(\d+)">/g)].map((m) => Number(m[1]));
  };
  /** A POST /agui request; resolves when its headers arrive. */
  const agui = (token: string, signal: AbortSignal, runId = 'r') =>
    fetch(`${w.url}/agui`, {
      method: 'POST',
      signal,
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'text/event-stream',
      },
      body: JSON.stringify({ threadId: 't', runId, messages: [], tools: [], context: [] }),
    });

  async function loggedIn(credential: string): Promise<BrowserContext> {
    return (await workbenchLogin(browser, w.url, credential, { timezoneId: 'Asia/Tokyo' })).context;
  }

  beforeAll(async () => {
    w = await startTestSystem('embedded', { agui: { runMs: 30_000 } });
    await w.episode('ea', { 'a.txt': 'a\n' });
    await w.episode('eb', { 'b.txt': 'b\n' });
    a = await w.session('ea', FULL_GRANTS);
    b = await w.session('eb', FULL_GRANTS);
    first =
      (await w.get('/v1/head').then((r) => w.get(`/v1/worlds/${r.text.trim()}`))).json.revision + 1;
    await w.call(a, 'ailang-read', { path: 'a.txt' }); // first
    await w.call(b, 'ailang-read', { path: 'b.txt' }); // first + 1
    await w.call(b, 'ailang-write', { path: 'w2.txt', content: 'before' }); // first + 2
    await w.call(b, 'ailang-write', { path: 'w2.txt', content: 'after\n' }); // first + 3
    const big = Array.from({ length: 20_000 }, (_, i) => `line ${i}`).join('\n');
    await w.call(a, 'ailang-write', { path: 'big.txt', content: big }); // first + 4
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
  }, E2E_TIMEOUT_MS);

  afterAll(async () => {
    await browser?.close();
    await w?.close();
  }, E2E_TIMEOUT_MS);

  it(
    'AG-UI admits a burst exactly: 16 streams per session, 64 in all',
    async () => {
      // first in this file: no stream was ever opened on this gateway
      const stop = new AbortController();
      const statuses = async (token: string, n: number) => {
        const answers = await Promise.all(
          Array.from({ length: n }, (_, i) => agui(token, stop.signal, `burst-${i}`)),
        );
        const refused = answers.filter((r) => r.status === 503);
        const texts = new Set(
          await Promise.all(refused.map(async (r) => ((await r.json()) as any).error.message)),
        );
        return [answers.filter((r) => r.status === 200).length, refused.length, [...texts]];
      };
      try {
        expect(await statuses(a, 20)).toEqual([
          16,
          4,
          ['this credential has 16 AG-UI streams open; retry later'],
        ]);
        expect(await statuses(w.operatorToken, 120)).toEqual([
          48,
          72,
          ['64 AG-UI streams are open; retry later'],
        ]);
      } finally {
        stop.abort();
      }
      // the slots free once the gateway sees the sockets close: one is admitted again
      for (let tries = 0; ; tries += 1) {
        const probe = new AbortController();
        const r = await agui(w.operatorToken, probe.signal, `probe-${tries}`);
        probe.abort();
        if (r.status === 200) break;
        expect(tries).toBeLessThan(40);
        await new Promise((done) => setTimeout(done, 250));
      }
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'a filtered timeline stays live: it inserts its own matches only, and its clock is UTC',
    async () => {
      const context = await loggedIn(w.operatorToken);
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
      await page.goto(`${w.url}/workbench?episode=eb`);
      expect(await page.getAttribute('#live', 'data-live')).toBe('on');
      expect(await page.getAttribute('#live', 'data-filters')).toBe('episode=eb');
      await page.waitForFunction(() =>
        /^live: checked /.test((globalThis as any).document.getElementById('live').textContent),
      );
      const text = squash(await page.textContent('#live'));
      const m = /^live: checked (\d\d:\d\d:\d\d), no new entries after #(\d+)$/.exec(text);
      expect(m?.[2]).toBe(String(first + 4));
      // the browser is in Tokyo (UTC+9); the clock it shows is UTC, within a minute of now
      const utc = Date.parse(`${new Date().toISOString().slice(0, 10)}T${m![1]}Z`);
      expect(Math.abs(((Date.now() - utc + 43_200_000) % 86_400_000) - 43_200_000)).toBeLessThan(
        60_000,
      );
      await w.call(a, 'ailang-read', { path: 'a.txt' }); // first + 5: not this page's
      await w.call(b, 'ailang-read', { path: 'b.txt' }); // first + 6
      await page.waitForSelector(`#timeline tbody tr[data-index="${first + 6}"]`, {
        timeout: 4000,
      });
      expect(
        await page.$$eval('#timeline tbody tr', (trs) =>
          trs.map((t) => t.getAttribute('data-index')),
        ),
      ).toEqual([first + 6, first + 3, first + 2, first + 1].map(String));
      await page.goto(`${w.url}/workbench?episode=eb&before=${first + 3}`);
      expect(squash(await page.textContent('#live'))).toMatch(
        new RegExp(
          `^checked \\d\\d:\\d\\d:\\d\\d, newest entry #${first + 6}; live updates off: an older page; open the newest page to follow$`,
        ),
      );
      expect(await page.getAttribute('#live', 'data-live')).toBe('off');
      expect(errors).toEqual([]);
      await context.close();
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'the live status line of the unfiltered timeline says its time in UTC in a Tokyo browser',
    async () => {
      const context = await loggedIn(w.operatorToken);
      const page = await context.newPage();
      await page.goto(`${w.url}/workbench`);
      await page.waitForFunction(() =>
        /^live: checked /.test((globalThis as any).document.getElementById('live').textContent),
      );
      const m = /^live: checked (\d\d:\d\d:\d\d), no new entries after #\d+$/.exec(
        squash(await page.textContent('#live')),
      );
      const utc = Date.parse(`${new Date().toISOString().slice(0, 10)}T${m![1]}Z`);
      expect(Math.abs(((Date.now() - utc + 43_200_000) % 86_400_000) - 43_200_000)).toBeLessThan(
        60_000,
      );
      await context.close();
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'the Why form posts: a 40 KB paste is walked, one over 1 MiB is a 413 naming the limit, a NUL shows as U+FFFD',
    async () => {
      const context = await loggedIn(w.operatorToken);
      const page = await context.newPage();
      await page.goto(`${w.url}/workbench/why`);
      expect(await page.getAttribute('form', 'method')).toBe('post');
      await page.fill('#target', `${first + 1}${' '.repeat(40_000)}`);
      await page.click('button[type=submit]');
      expect(squash(await page.textContent('p.heading'))).toBe(`why: entry ${first + 1}`);
      await context.close();
      const post = (body: string) =>
        fetch(`${w.url}/workbench/why`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${w.operatorToken}`,
            'content-type': 'application/x-www-form-urlencoded',
          },
          body,
        });
      const big = await post(`target=${'x'.repeat(1024 * 1024)}`);
      const text = await big.text();
      expect([big.status, /<p class="stop" role="alert">([^<]*)<\/p>/.exec(text)?.[1]]).toEqual([
        413,
        'the Why form takes at most 1 MiB; this paste is larger',
      ]);
      const nul = await (await get('/workbench/why?target=%00a')).text();
      expect(/<textarea[^>]*>([^<]*)<\/textarea>/.exec(nul)?.[1]).toBe('\uFFFDa');
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'a login ticket is recorded in the broker and exchanged once',
    async () => {
      const db = new pg.Client({ connectionString: w.databaseUrl });
      await db.connect();
      const count = async () =>
        Number((await db.query('SELECT count(*) AS n FROM broker.workbench_tickets')).rows[0].n);
      const before = await count();
      const minted = await fetch(`${w.url}/workbench/tickets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${b}` },
      });
      const { path } = (await minted.json()) as { path: string };
      const first = await fetch(`${w.url}${path}`, { redirect: 'manual' });
      expect([first.status, first.headers.get('location')]).toEqual([303, '/workbench']);
      expect(await count()).toBe(before + 1);
      const again = await fetch(`${w.url}${path}`, { redirect: 'manual' });
      expect(again.status).toBe(401);
      await db.end();
    },
    E2E_TIMEOUT_MS,
  );

  it(
    "GET /workbench/rows applies the page's filters and the session's visibility",
    async () => {
      expect(await rowIndexes(`/workbench/rows?from=${first}&episode=eb`, w.operatorToken)).toEqual(
        [first + 1, first + 2, first + 3, first + 6],
      );
      expect(
        await rowIndexes(`/workbench/rows?from=${first}&tool=ailang-write`, w.operatorToken),
      ).toEqual([first + 2, first + 3, first + 4]);
      // a session's surface and time filters match its own rows only
      expect(await rowIndexes(`/workbench/rows?from=${first}&surface=mcp`, a)).toEqual([
        first,
        first + 4,
        first + 5,
      ]);
      const since = (await w.get(`/v1/log/${first}`)).json;
      expect(since.header.entryIndex).toBe(first);
      const page = await get(`/workbench?surface=mcp`, a);
      const html = await page.text();
      expect([...html.matchAll(/<tr data-index="(\d+)">/g)].map((r) => Number(r[1]))).toEqual([
        first + 5,
        first + 4,
        first,
      ]);
      const bad = await get(`/workbench/rows?from=${first}&outcome=unrecorded`);
      expect([bad.status, await bad.text()]).toEqual([
        400,
        'unrecorded calls have no rows to follow',
      ]);
      const limit = await get(`/workbench/rows?from=${first}&limit=3`);
      expect([limit.status, await limit.text()]).toEqual([
        400,
        'limit is not a parameter of this page (it reads episode, tool, outcome, surface, since, until)',
      ]);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'array- and object-shaped parameters and limit=0 are 400 with a named message',
    async () => {
      const stop = async (query: string) => {
        const res = await get(`/workbench?${query}`);
        const m = /<p class="stop" role="alert">([^<]*)<\/p>/.exec(await res.text());
        return [res.status, m?.[1]];
      };
      expect(await stop('outcome[]=denied')).toEqual([
        400,
        'outcome[]: parameters are plain name=value pairs (no [] or [key] forms)',
      ]);
      expect(await stop('episode[a]=ea')).toEqual([
        400,
        'episode[a]: parameters are plain name=value pairs (no [] or [key] forms)',
      ]);
      expect(await stop('before[]=3')).toEqual([
        400,
        'before[]: parameters are plain name=value pairs (no [] or [key] forms)',
      ]);
      expect(await stop('limit=0')).toEqual([400, 'limit must be an integer 1..100']);
      expect(await stop('limit=101')).toEqual([400, 'limit must be an integer 1..100']);
      expect(await stop('episod=ea')).toEqual([
        400,
        'episod is not a parameter of this page (it reads before, limit, episode, tool, outcome, surface, since, until)',
      ]);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'every /workbench response carries the security headers, a 404 too',
    async () => {
      for (const path of ['/workbench/nonexistent', '/workbench//entry/1', '/workbench/entry/x']) {
        const res = await get(path);
        expect([
          path,
          res.status,
          res.headers.get('content-security-policy'),
          res.headers.get('x-content-type-options'),
          res.headers.get('x-frame-options'),
          res.headers.get('cache-control'),
        ]).toEqual([path, 404, WORKBENCH_CSP, 'nosniff', 'DENY', 'no-store']);
      }
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'an overwrite says its before content is not recorded; a 20,000-line write renders 400 lines and names the rest',
    async () => {
      const spans = (html: string) =>
        [...html.matchAll(/<span class="(add|del|same)">([^<]*)<\/span>/g)].map((m) => m[2]);
      const over = await (await get(`/workbench/entry/${first + 3}`)).text();
      expect(spans(over)).toEqual(['+after']);
      expect(
        squash(/<figcaption>([\s\S]*?)<\/figcaption>/.exec(over)![1]!.replace(/<[^>]+>/g, '')),
      ).toBe(
        "content written to w2.txt (before content not recorded: the write's request holds only the new content)",
      );
      const res = await get(`/workbench/entry/${first + 4}`);
      const big = await res.text();
      expect(spans(big)).toHaveLength(400);
      expect(spans(big)[399]).toBe('+line 399');
      const request =
        /<figure class="diff">[\s\S]*?<a href="(\/workbench\/objects\/sha256:[0-9a-f]{64})">raw object<\/a>/.exec(
          big,
        );
      // the input's and the plan's raw JSON, the change, the request's raw JSON: each cut, with
      // its rest named
      expect(
        [...big.matchAll(/<p class="more">([\s\S]*?)<\/p>/g)].map((m) =>
          squash(m[1]!.replace(/<a href="[^"]*">/, '<a>')),
        ),
      ).toEqual([
        '… 163392 more character(s) not shown: <a>raw object</a>',
        '… 163653 more character(s) not shown: <a>raw object</a>',
        '… 19600 more line(s) not shown; the whole request: <a>raw object</a>',
        '… 163525 more character(s) not shown: <a>raw object</a>',
      ]);
      expect((await get(request![1]!)).status).toBe(200);
      // the raw JSON of the input and request sections is cut at 64 KiB each
      expect(big.length).toBeLessThan(400_000);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'AG-UI names an unknown bearer and refuses a cursor beyond the head',
    async () => {
      const unknown = await agui('f'.repeat(64), new AbortController().signal);
      expect([unknown.status, ((await unknown.json()) as any).error]).toEqual([
        401,
        { class: 'SessionUnknown', message: 'unknown session credential' },
      ]);
      const head = (await w.get('/v1/head').then((r) => w.get(`/v1/worlds/${r.text.trim()}`))).json
        .revision;
      const far = await fetch(`${w.url}/agui`, {
        method: 'POST',
        headers: { authorization: `Bearer ${a}`, 'content-type': 'application/json' },
        body: JSON.stringify({ threadId: 't', runId: 'far', state: { cursor: 1_000_000 } }),
      });
      expect([far.status, ((await far.json()) as any).error.message]).toEqual([
        400,
        `state.cursor 1000000 is beyond the log's next index ${head + 1}`,
      ]);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    "a revoked session's open stream ends with RUN_ERROR at its next check",
    async () => {
      const c = await w.session('ea', FULL_GRANTS);
      const res = await agui(c, new AbortController().signal, 'revoked');
      expect(res.status).toBe(200);
      const text = res.text();
      await new Promise((r) => setTimeout(r, 300));
      const revoked = await fetch(`${w.url}/v1/operator/sessions/${credentialIdOf(c)}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${w.operatorToken}` },
      });
      expect(revoked.status).toBe(200);
      const events = (await text)
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => JSON.parse(l.slice(6)));
      expect(events.map((e) => e.type)).toEqual(['RUN_STARTED', 'STATE_SNAPSHOT', 'RUN_ERROR']);
      expect(events[2]).toEqual({
        type: 'RUN_ERROR',
        message: expect.stringMatching(/^the credential no longer reads: /),
        code: 'credential',
      });
    },
    E2E_TIMEOUT_MS,
  );
});
