/**
 * The workbench in a real browser (DESIGN.md §5a): Debian's headless Chromium driven by
 * playwright-core against a whole World in both run modes (distributed: real PostgreSQL and
 * NATS), after a scripted scenario — a read, a write, an edit, a plan refusal, a denial at
 * budget 0 and an A2A call. Each page shows the exact rows and values; a call made while the
 * timeline is open appears without reload; every link of the why walk is ✓ (and ✗ on an object
 * altered in the database); the entry page's signed checkpoint and inclusion proof are ✓ (✗ on a
 * tree row altered in the database); the pages render with JavaScript off; no console error, no request
 * leaves the gateway's origin, the keyboard reaches every link. POST /agui is read with
 * @ag-ui/client's HttpAgent. WORLD_WORKBENCH_SCREENSHOTS=1 saves 1280×800 screenshots under
 * apps/gateway/docs/.
 */
import { join } from 'node:path';
import { HttpAgent } from '@ag-ui/client';
import pg from 'pg';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { entryHash, worldRef } from '@world/canonical';
import { shortRef } from '@world/why';
import { requireBuiltCli, runCli } from '../support/cli.js';
import { FULL_GRANTS, MODES, startTestSystem, type TestSystem } from '../support/system.js';
import { CHROMIUM, WORKBENCH_CSP, workbenchLogin } from '../support/workbench.js';

const E2E_TIMEOUT_MS = 300_000;
const DOCS = join(import.meta.dirname, '../../../gateway/docs');
const NOTES = 'line one\nline two <script>alert(1)</script>\n';

describe.each(MODES)('workbench in a real browser (%s mode)', (mode) => {
  let w: TestSystem;
  let browser: Browser;
  let token: string;
  let denied: string;
  let other: string;
  let first: number;
  const a2aTask = 'wb-a2a-1';

  /** Text as the page shows it: runs of white space as one space, trimmed. */
  const squash = (text: string | null) => (text ?? '').replace(/\s+/g, ' ').trim();
  /** The text of the first element `selector` matches. */
  const textOf = async (page: Page, selector: string) => squash(await page.textContent(selector));
  /**
   * Cells of every timeline row, as the page shows them, but the time (checked here: a UTC time
   * to the second, never later than the newer row above it).
   */
  const rowsOf = async (page: Page, table = '#timeline') => {
    const rows = (
      await page.$$eval(`${table} tbody tr`, (trs) =>
        trs.map((tr) => Array.from(tr.children).map((td: any) => td.textContent ?? '')),
      )
    ).map((cells) => cells.map(squash));
    const times = rows.map((r) => r[1]!);
    for (const t of times) expect(t).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect([...times].sort().reverse()).toEqual(times);
    return rows.map((r) => [r[0]!, ...r.slice(2)]);
  };
  /** The commit time (ISO, to the millisecond) the timeline row of entry `i` states. */
  const timeAt = (page: Page, i: number) =>
    page.getAttribute(`#timeline tr[data-index="${i}"] time`, 'datetime');
  const hashAt = async (i: number) => shortRef((await w.get(`/v1/log/${i}`)).json.entryHash);
  /**
   * How many hashes the audit path of leaf m in a tree of n leaves has, by RFC 9162 §2.1.3.1's
   * recursion PATH(m, D[n]) (k the largest power of two below n), independent of @world/tlog.
   */
  const pathLength = (m: number, n: number): number => {
    if (n <= 1) return 0;
    let k = 1;
    while (k * 2 < n) k *= 2;
    return 1 + (m < k ? pathLength(m, k) : pathLength(m - k, n - k));
  };
  /** The verifiable-log section of an entry page as it reads: [label, value] per row. */
  const proofRows = (page: Page) =>
    page.$$eval('section.proof dl dt', (dts) =>
      dts.map((dt) => [
        (dt.textContent ?? '').trim(),
        (dt.nextElementSibling?.textContent ?? '').replace(/\s+/g, ' ').trim(),
      ]),
    );

  /** A browser context logged in with `credential` through a one-time ticket. */
  async function loggedIn(credential: string, javaScriptEnabled = true): Promise<BrowserContext> {
    const login = await workbenchLogin(browser, w.url, credential, { javaScriptEnabled });
    expect(login.status).toBe(200);
    expect(login.landedAt).toBe(`${w.url}/workbench`);
    return login.context;
  }

  /** A page that records console errors and requests to other origins. */
  async function watched(context: BrowserContext) {
    const page = await context.newPage();
    const errors: string[] = [];
    const foreign: string[] = [];
    page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
    page.on('pageerror', (e) => void errors.push(e.message));
    page.on('request', (r) => void (!r.url().startsWith(w.url) && foreign.push(r.url())));
    return { page, errors, foreign };
  }

  const shot = async (page: Page, name: string) => {
    if (process.env.WORLD_WORKBENCH_SCREENSHOTS === '1' && mode === 'distributed')
      await page.screenshot({ path: join(DOCS, `workbench-${name}.png`) });
  };

  beforeAll(async () => {
    requireBuiltCli();
    w = await startTestSystem(mode, { agui: { runMs: 3000, heartbeatMs: 500 } });
    await w.episode('wb', { 'notes.txt': NOTES });
    await w.episode('wb-other', { 'o.txt': 'other\n' });
    token = await w.session('wb', FULL_GRANTS);
    denied = await w.session('wb', [{ effect: 'Workspace.Write', scope: 'worktree', budget: 0 }]);
    other = await w.session('wb-other', FULL_GRANTS);
    first =
      (await w.get('/v1/head').then((r) => w.get(`/v1/worlds/${r.text.trim()}`))).json.revision + 1;
    expect((await w.call(token, 'ailang-read', { path: 'notes.txt' })).content).toBe(NOTES);
    await w.call(token, 'ailang-write', { path: 'new.txt', content: '<b>bold</b>\n' });
    await w.call(token, 'ailang-edit', {
      path: 'notes.txt',
      old_text: 'line two',
      new_text: 'line 2',
    });
    await w.call(token, 'ailang-read', { path: 'notes.txt', limit: 1 });
    await w.call(denied, 'ailang-write', { path: 'x.txt', content: 'x\n' });
    const a2a = await fetch(`${w.url}/a2a`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tasks/send',
        params: {
          id: a2aTask,
          metadata: { skill_id: 'ailang-read' },
          message: { role: 'user', parts: [{ type: 'data', data: { path: 'new.txt' } }] },
        },
      }),
    });
    expect(a2a.status).toBe(200);
    await w.call(other, 'ailang-read', { path: 'o.txt' });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }, E2E_TIMEOUT_MS);

  afterAll(async () => {
    await browser?.close();
    await w?.close();
  }, E2E_TIMEOUT_MS);

  it(
    'the timeline shows each call of the scenario newest first, with its outcome and short hash; new calls appear live',
    async () => {
      const context = await loggedIn(w.operatorToken);
      const cookies = await context.cookies();
      expect(cookies.map((c) => [c.name, c.httpOnly, c.sameSite])).toEqual([
        ['world_workbench', true, 'Strict'],
      ]);
      const { page, errors, foreign } = await watched(context);
      const res = await page.goto(`${w.url}/workbench`);
      expect(res!.headers()['content-security-policy']).toBe(WORKBENCH_CSP);
      expect(res!.headers()['x-content-type-options']).toBe('nosniff');
      expect(res!.headers()['cache-control']).toBe('no-store');
      const i = first;
      expect(await rowsOf(page).then((r) => r.slice(0, 7))).toEqual([
        [`#${i + 6}`, 'mcp', 'wb-other', 'ailang-read', 'ok', await hashAt(i + 6)],
        [`#${i + 5}`, 'a2a', 'wb', 'ailang-read', 'ok', await hashAt(i + 5)],
        [`#${i + 4}`, 'mcp', 'wb', 'ailang-write', 'denied denied:budget', await hashAt(i + 4)],
        [
          `#${i + 3}`,
          'mcp',
          'wb',
          'ailang-read',
          'refused unknown argument "limit"; ailang-read admits only: path',
          await hashAt(i + 3),
        ],
        [`#${i + 2}`, 'mcp', 'wb', 'ailang-edit', 'ok', await hashAt(i + 2)],
        [`#${i + 1}`, 'mcp', 'wb', 'ailang-write', 'ok', await hashAt(i + 1)],
        [`#${i}`, 'mcp', 'wb', 'ailang-read', 'ok', await hashAt(i)],
      ]);
      await page.waitForFunction(() =>
        /^live: checked \d\d:\d\d:\d\d, no new entries after #\d+$/.test(
          (globalThis as any).document.getElementById('live').textContent,
        ),
      );
      expect(await textOf(page, '#live')).toMatch(
        new RegExp(`^live: checked \\d\\d:\\d\\d:\\d\\d, no new entries after #${i + 6}$`),
      );
      await shot(page, 'timeline');
      await w.call(token, 'ailang-read', { path: 'new.txt' });
      await page.waitForSelector(`#timeline tbody tr[data-index="${i + 7}"]`, { timeout: 2000 });
      expect((await rowsOf(page))[0]).toEqual([
        `#${i + 7}`,
        'mcp',
        'wb',
        'ailang-read',
        'ok',
        await hashAt(i + 7),
      ]);
      expect(errors).toEqual([]);
      expect(foreign).toEqual([]);
      await context.close();
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'filters and cursor paging',
    async () => {
      const context = await loggedIn(w.operatorToken);
      const page = await context.newPage();
      await page.goto(`${w.url}/workbench?outcome=denied`);
      expect((await rowsOf(page)).map((r) => r[0])).toEqual([`#${first + 4}`]);
      await page.goto(`${w.url}/workbench?surface=a2a`);
      expect((await rowsOf(page)).map((r) => r[0])).toEqual([`#${first + 5}`]);
      await page.goto(`${w.url}/workbench?episode=wb&tool=ailang-write`);
      expect((await rowsOf(page)).map((r) => r[0])).toEqual([`#${first + 4}`, `#${first + 1}`]);
      await page.goto(`${w.url}/workbench?episode=wb&limit=2`);
      expect((await rowsOf(page)).map((r) => r[0])).toEqual([`#${first + 7}`, `#${first + 5}`]);
      await page.click('a[rel=next]');
      expect(page.url()).toBe(`${w.url}/workbench?before=${first + 5}&limit=2&episode=wb`);
      expect((await rowsOf(page)).map((r) => r[0])).toEqual([`#${first + 4}`, `#${first + 3}`]);
      await page.goto(`${w.url}/workbench`);
      const since = await timeAt(page, first + 4);
      const until = await timeAt(page, first + 6);
      await page.goto(`${w.url}/workbench?since=${since}&until=${until}`);
      expect((await rowsOf(page)).map((r) => r[0])).toEqual([`#${first + 5}`, `#${first + 4}`]);
      await page.goto(`${w.url}/workbench?outcome=unrecorded`);
      expect(await textOf(page, 'p.scanned')).toBe(
        'calls claimed and never committed (no log entry), newest claim first: 0 shown',
      );
      expect(await page.$$eval('#unrecorded tbody tr', (trs) => trs.length)).toBe(0);
      const bad = await page.goto(`${w.url}/workbench?outcome=maybe`);
      expect(bad!.status()).toBe(400);
      expect(await textOf(page, '.stop')).toBe(
        'outcome must be one of ok, refused, denied, failed, unrecorded',
      );
      const badTime = await page.goto(`${w.url}/workbench?since=yesterday`);
      expect(badTime!.status()).toBe(400);
      expect(await textOf(page, '.stop')).toBe('since must be a time YYYY-MM-DDTHH:MM[:SS] (UTC)');
      await context.close();
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'the entry page of the edit: every link ✓, the effect record, the change as an escaped diff',
    async () => {
      const context = await loggedIn(w.operatorToken);
      const { page, errors, foreign } = await watched(context);
      await page.goto(`${w.url}/workbench/entry/${first + 2}`);
      expect(
        await page.$$eval('table.links tr.link', (trs) =>
          trs.map(
            (tr) => `${tr.children[1]!.textContent!.trim()}${tr.children[0]!.textContent!.trim()}`,
          ),
        ),
      ).toEqual(['world✓', 'entry✓', 'record✓', 'input✓', 'plan✓', 'effect✓', 'output✓']);
      expect(await textOf(page, 'p.summary')).toBe('all 7 link(s) verified');
      expect(await textOf(page, '.effect .decision')).toBe('allowed');
      expect(await textOf(page, '.effect .budget')).toBe('49 → 48');
      expect(await page.$$eval('.diff pre span', (s) => s.map((x) => x.textContent))).toEqual([
        '-line two',
        '+line 2',
      ]);
      // as the browser lays it out: one line each, no blank line between
      expect(await page.innerText('.diff pre')).toBe('-line two\n+line 2');
      // Stored strings are text: the only script on the page is the workbench's own.
      expect(await page.$$eval('script', (s) => s.map((x) => x.getAttribute('src')))).toEqual([
        '/workbench/assets/workbench.js',
      ]);
      // The log is first + 8 entries long here (the why test below names that size).
      const size = first + 8;
      const index = first + 2;
      const cp = (await w.get('/v1/checkpoint')).text;
      const [origin, sizeLine, root] = cp.split('\n');
      expect(sizeLine).toBe(String(size));
      const proof = (await w.get(`/v1/proof/inclusion?index=${index}&size=${size}`)).json;
      // Genesis is entry 0, so the edit is leaf 3 of 9: its path is 4 hashes (RFC 9162 §2.1.3.1).
      expect([index, size, pathLength(index, size)]).toEqual([3, 9, 4]);
      expect(proof.hashes).toHaveLength(4);
      expect(await proofRows(page)).toEqual([
        ['origin', origin],
        ['size', String(size)],
        ['root', root],
        ['signature', '✓ signed by the log key'],
        ['leaf index', String(index)],
        ['tree size', String(size)],
        ['path', proof.hashes.join('')],
        ['verified', `✓ root recomputed from entry ${index}'s bytes`],
      ]);
      expect(await page.$$eval('ol.path li', (l) => l.map((li) => li.textContent))).toEqual(
        proof.hashes,
      );
      await page.click('text=raw proof JSON');
      expect(JSON.parse((await page.textContent('pre.raw'))!)).toEqual(proof);
      await page.goBack();
      await page.click('text=raw checkpoint');
      expect(await page.textContent('pre.raw')).toBe(cp);
      await page.goBack();
      // the page as it opens (going back restores the scroll at the proof)
      await page.evaluate(() => (globalThis as any).scrollTo(0, 0));
      await shot(page, 'entry');
      // Every ref is a link to the page that shows it, in the page's order: header, walk, sections.
      const entry = (await w.get(`/v1/log/${index}`)).json;
      const record = await w.payload(entry.transitionRef, w.operatorToken);
      const effect = await w.payload(record.effects[0], w.operatorToken);
      const world = worldRef({
        revision: index,
        stateRoot: record.output,
        logHead: entry.entryHash,
      });
      const object = (ref: string) => `/workbench/objects/${ref}`;
      expect(await page.$$eval('main a', (as) => as.map((a) => a.getAttribute('href')))).toEqual([
        `/workbench/entry/${index}`,
        `/workbench/entry/${index - 1}`,
        object(entry.transitionRef),
        object(entry.header.transitionFn),
        object(entry.header.interpreter),
        `/workbench/why?target=${world}`,
        `/workbench/entry/${index}`,
        ...[entry.transitionRef, record.input, record.plan, record.effects[0], record.output].map(
          object,
        ),
        `/workbench/why?target=${index}`,
        ...[entry.transitionRef, record.input, record.plan, record.output].map(object),
        ...[record.effects[0], effect.requestRef, effect.resultRef].map(object),
        '/workbench/checkpoint',
        `/workbench/proof/inclusion?index=${index}&size=${size}`,
      ]);
      // click through: the world ref to its walk, the prev hash to the entry before, an object
      await page.click('tr.link[data-link="world"] a');
      expect(page.url()).toBe(`${w.url}/workbench/why?target=${world}`);
      expect(await textOf(page, 'p.heading')).toBe(
        `why: entry ${index} (world ${shortRef(world)})`,
      );
      expect(await textOf(page, 'p.summary')).toBe('all 8 link(s) verified');
      await page.click('tr.link[data-link="entry"] a');
      expect(page.url()).toBe(`${w.url}/workbench/entry/${index}`);
      await page.click('dd.prev a');
      expect(page.url()).toBe(`${w.url}/workbench/entry/${index - 1}`);
      expect(await textOf(page, 'h1')).toBe(`Entry #${index - 1}`);
      await page.goBack();
      await page.click('tr.link[data-link="effect"] a');
      expect(page.url()).toBe(`${w.url}${object(record.effects[0])}`);
      expect(JSON.parse((await page.textContent('main pre'))!)).toEqual(effect);
      await page.goBack();
      await page.click('dd.transition-ref a');
      expect(await textOf(page, 'main dl dd')).toBe(entry.transitionRef);
      await page.goto(`${w.url}/workbench/entry/${first + 1}`);
      expect(await page.$$eval('.diff pre span', (s) => s.map((x) => x.textContent))).toEqual([
        '+<b>bold</b>',
      ]);
      expect(await page.$$('.diff b')).toEqual([]);
      expect(errors).toEqual([]);
      expect(foreign).toEqual([]);
      await context.close();
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'the why page walks an A2A id link by link, and names a stop for an id nothing committed',
    async () => {
      const context = await loggedIn(w.operatorToken);
      const { page, errors, foreign } = await watched(context);
      await page.goto(`${w.url}/workbench/why`);
      await page.fill('#target', `a2a:wb:${a2aTask}`);
      await page.click('button[type=submit]');
      expect(await textOf(page, 'p.heading')).toBe(
        `why: entry ${first + 5} (invocation a2a:wb:${a2aTask})`,
      );
      // The same walk as `world why`, ending with the inclusion link in the signed checkpoint.
      const [origin, size] = (await w.get('/v1/checkpoint')).text.split('\n');
      expect(
        await page.$$eval('table.links tr.link', (trs) =>
          trs.map(
            (tr) => `${tr.children[1]!.textContent!.trim()}${tr.children[0]!.textContent!.trim()}`,
          ),
        ),
      ).toEqual(['world✓', 'entry✓', 'record✓', 'input✓', 'plan✓', 'effect✓', 'output✓', 'log✓']);
      expect(await textOf(page, 'tr.link[data-link="log"] td:nth-child(4)')).toBe(
        `entry ${first + 5} ∈ signed checkpoint ${size} (${origin})`,
      );
      expect(await textOf(page, 'p.summary')).toBe('all 8 link(s) verified');
      await shot(page, 'why');
      await page.goto(`${w.url}/workbench/why?target=a2a:wb:never`);
      expect(await textOf(page, 'p.stop')).toBe(
        '✗ stop: a2a:wb:never: no committed invocation record has this id',
      );
      // a result's world block, pasted on its own: found by its plan, compared with the output's
      const edit = (await w.get(`/v1/log/${first + 2}`)).json;
      const record = await w.payload(edit.transitionRef, w.operatorToken);
      const { world } = await w.payload(record.output, w.operatorToken);
      await page.goto(`${w.url}/workbench/why`);
      await page.fill('#target', JSON.stringify(world, null, 2));
      await page.click('button[type=submit]');
      expect(await textOf(page, 'p.heading')).toBe(
        `why: entry ${first + 2} (matched by the world block's plan ${shortRef(record.plan)})`,
      );
      expect(await textOf(page, 'tr.link[data-link="output"] td:nth-child(4)')).toMatch(
        / = world\.stateRoot; your world block is its world block$/,
      );
      expect(await textOf(page, 'p.summary')).toBe('all 8 link(s) verified');
      expect(errors).toEqual([]);
      expect(foreign).toEqual([]);
      await context.close();
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'episodes: both episodes with their sessions; an episode page lists its calls, grants, spend against budget as bars, lease holder and indeterminate intents',
    async () => {
      const context = await loggedIn(w.operatorToken);
      const { page, errors, foreign } = await watched(context);
      await page.goto(`${w.url}/workbench/episodes`);
      expect(
        await page.$$eval('table.episodes tbody tr', (trs) =>
          trs.map((tr) => Array.from(tr.children).map((td: any) => (td.textContent ?? '').trim())),
        ),
      ).toEqual([
        ['wb', '2', '2', '0'],
        ['wb-other', '1', '1', '0'],
      ]);
      await shot(page, 'episodes');
      await page.click('text=wb-other');
      expect(await textOf(page, 'h1')).toBe('Episode wb-other');
      expect(await page.$$eval('table.sessions li', (l) => l.length)).toBe(FULL_GRANTS.length);
      const spendRows = () =>
        page.$$eval('table.spend tbody tr', (trs) =>
          trs.map((tr) => {
            const cells = Array.from(tr.children).map((td: any) => (td.textContent ?? '').trim());
            const fill = tr.querySelectorAll('svg.bar rect')[1]!;
            return [
              cells[1],
              fill.getAttribute('width'),
              fill.getAttribute('fill'),
              cells[3],
              cells[4],
            ];
          }),
        );
      const green = '#137333';
      const red = '#c5221f';
      expect(await spendRows()).toEqual([
        ['Workspace.Read@worktree', '2.4', green, '1 / 50', '49'],
        ...FULL_GRANTS.slice(1).map((g) => [`${g.effect}@worktree`, '0.0', green, '0 / 50', '50']),
      ]);
      expect(await textOf(page, '#lease')).toBe('none (free)');
      expect(await textOf(page, '#indeterminate')).toBe('none');
      // its calls, as the timeline shows them
      expect(await rowsOf(page, '#episode-calls')).toEqual([
        [`#${first + 6}`, 'mcp', 'wb-other', 'ailang-read', 'ok', await hashAt(first + 6)],
      ]);
      await page.goto(`${w.url}/workbench/episodes/wb`);
      expect((await rowsOf(page, '#episode-calls')).map((r) => r.slice(0, 5))).toEqual([
        [`#${first + 7}`, 'mcp', 'wb', 'ailang-read', 'ok'],
        [`#${first + 5}`, 'a2a', 'wb', 'ailang-read', 'ok'],
        [`#${first + 4}`, 'mcp', 'wb', 'ailang-write', 'denied denied:budget'],
        [
          `#${first + 3}`,
          'mcp',
          'wb',
          'ailang-read',
          'refused unknown argument "limit"; ailang-read admits only: path',
        ],
        [`#${first + 2}`, 'mcp', 'wb', 'ailang-edit', 'ok'],
        [`#${first + 1}`, 'mcp', 'wb', 'ailang-write', 'ok'],
        [`#${first}`, 'mcp', 'wb', 'ailang-read', 'ok'],
      ]);
      await page.click("text=this episode's calls on the timeline");
      expect(page.url()).toBe(`${w.url}/workbench?episode=wb`);
      await page.goBack();
      // newest session first: the budget-0 session (its Write grant sees the episode's 2 writes)
      expect(await spendRows()).toEqual([
        ['Workspace.Write@worktree', '120.0', red, '2 / 0', '0'],
        // the read, the A2A read and the timeline test's live read (the read with "limit" was
        // refused: no effect); the write and the edit
        ['Workspace.Read@worktree', '7.2', green, '3 / 50', '47'],
        ['Workspace.Write@worktree', '4.8', green, '2 / 50', '48'],
        ...FULL_GRANTS.slice(2).map((g) => [`${g.effect}@worktree`, '0.0', green, '0 / 50', '50']),
      ]);
      await shot(page, 'episode');
      expect(errors).toEqual([]);
      expect(foreign).toEqual([]);
      await context.close();
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'overview: head, entries per minute by outcome (chart and table), unrecorded calls, latency per phase, every replica with its readiness',
    async () => {
      const context = await loggedIn(w.operatorToken);
      const { page, errors, foreign } = await watched(context);
      await page.goto(`${w.url}/workbench/overview`);
      const head = first + 7;
      expect(await textOf(page, '#head-index')).toBe(`#${head}`);
      expect(await textOf(page, '#unrecorded-count')).toBe(
        '0 claimed and never committed (indeterminate until recovery ends them)',
      );
      const rate = await page.$$eval('#rate tbody tr', (trs) =>
        trs.map((tr) => Array.from(tr.children).map((td: any) => (td.textContent ?? '').trim())),
      );
      expect(await page.$$eval('#rate thead th', (t) => t.map((x) => x.textContent))).toEqual([
        'minute (UTC)',
        'ok',
        'refused',
        'denied',
        'failed',
        'hidden',
      ]);
      // every entry of this World was committed since it booted, within the chart's hour
      const sum = (col: number) => rate.reduce((n, r) => n + Number(r[col]), 0);
      expect([sum(1), sum(2), sum(3), sum(4), sum(5)]).toEqual([head + 1 - 2, 1, 1, 0, 0]);
      expect(await page.$$eval('#rate-chart rect', (r) => r.length)).toBeGreaterThan(1);
      // The survey the page shows is kept in the background (every 5 s): reload until one taken
      // after the last call of the scenario is shown.
      const callsDone = Date.now();
      const surveyedAt = async () =>
        Date.parse((await page.getAttribute('#survey-status time', 'datetime')) ?? '0');
      expect(await page.$$('#survey-status')).toHaveLength(1);
      while ((await surveyedAt()) <= callsDone) {
        await new Promise((r) => setTimeout(r, 500));
        await page.reload();
      }
      const order = ['gateway', 'planner', 'broker', 'ledger'];
      const running = [...w.system.services]
        .sort((a, b) => order.indexOf(a.service) - order.indexOf(b.service))
        .map((s) => [s.service, s.replica]);
      expect(running.map((r) => r[0])).toEqual(order);
      expect(await textOf(page, '#survey-status')).toMatch(
        /^surveyed \d\d:\d\d:\d\d UTC, 4 replicas answered within 500 ms$/,
      );
      expect(await page.$$('#survey-gaps')).toEqual([]);
      // each check as its /readyz runs it; the integrity scans as the gateway's /readyz reports them
      const ready = (await w.get('/readyz')).json;
      const scan = (svc: 'ledger' | 'broker') =>
        `${svc}: clean, ${ready.integrity[svc].scanned} rows, complete`;
      const nats = mode === 'distributed';
      const checks = {
        gateway: nats ? 'database ok, nats ok' : 'database ok',
        planner: nats ? 'nats ok' : 'none apply (in-process bus)',
        broker: nats ? 'database ok, nats ok' : 'database ok',
        ledger: nats ? 'database ok, nats ok' : 'database ok',
      } as Record<string, string>;
      const rows = (
        await page.$$eval('#replicas tbody tr', (trs) =>
          trs.map((tr) => Array.from(tr.children).map((td: any) => td.textContent ?? '')),
        )
      ).map((cells) => cells.map(squash));
      expect(rows.map((r) => r.slice(0, 5))).toEqual(
        running.map(([service, replica]) => [
          service!,
          replica!,
          'ready',
          checks[service!],
          service === 'ledger' || service === 'broker' ? scan(service) : 'owns no hashed data',
        ]),
      );
      for (const r of rows) expect(r[5]).toMatch(/^(\d+s|\d+m \d\ds)$/);
      // per phase: the calls of the scenario (8 planned and committed, 7 reached the broker's
      // lease, 6 ran a handler: the refusal has no effect, the denial ran none), and every count
      // as the process's own /metrics counts world_phase_seconds for these replicas
      const metrics = await fetch(`${w.url}/metrics`).then((r) => r.text());
      const replicas = new Set(running.map((r) => r[1]));
      const counted = (phase: string) =>
        metrics
          .split('\n')
          .map((l) =>
            /^world_phase_seconds_count\{replica="([^"]+)",phase="([^"]+)"\} (\d+)$/.exec(l),
          )
          .filter((m) => m !== null && replicas.has(m[1]!) && m[2] === phase)
          .reduce((n, m) => n + Number(m![3]), 0);
      const latency = (
        await page.$$eval('#latency tbody tr', (trs) =>
          trs.map((tr) => Array.from(tr.children).map((td: any) => td.textContent ?? '')),
        )
      ).map((cells) => cells.map(squash));
      // finish is timed only for tools whose plan asks for a finish phase
      const finish = counted('finish');
      const expected = [
        ['plan', 8],
        ['lease', 7],
        ['execute', 6],
        ...(finish > 0 ? [['finish', finish]] : []),
        ['commit', 8],
      ];
      expect(latency.map((r) => [r[0], Number(r[1])])).toEqual(expected);
      expect(expected.map(([p]) => [p, counted(p as string)])).toEqual(expected);
      for (const r of latency) {
        for (const v of r.slice(2, 5)) expect(v).toMatch(/^(≤ [\d.]+ (ms|s)|> 30 s)$/);
        expect(r[5]).toBe('1'); // one planner, one broker
      }
      expect(await textOf(page, '#latency-note')).toContain(
        'Values are bucket upper bounds of world_phase_seconds',
      );
      await shot(page, 'overview');
      expect(errors).toEqual([]);
      expect(foreign).toEqual([]);
      await context.close();
    },
    E2E_TIMEOUT_MS,
  );

  it(
    "a session sees its own episode's payloads only; without a credential there is only how to get one",
    async () => {
      const context = await loggedIn(other);
      const page = await context.newPage();
      await page.goto(`${w.url}/workbench`);
      const rows = await rowsOf(page);
      expect(rows.find((r) => r[0] === `#${first + 6}`)!.slice(1, 5)).toEqual([
        'mcp',
        'wb-other',
        'ailang-read',
        'ok',
      ]);
      expect(rows.find((r) => r[0] === `#${first + 2}`)!.slice(1, 5)).toEqual([
        'mcp',
        '-',
        '-',
        'not visible',
      ]);
      // Another episode's entry: its record is a named stop, not a broken link (DESIGN.md §3).
      const linkMarks = () =>
        page.$$eval('table.links tr.link', (trs) =>
          trs.map(
            (tr) => `${tr.children[1]!.textContent!.trim()}${tr.children[0]!.textContent!.trim()}`,
          ),
        );
      await page.goto(`${w.url}/workbench/why?target=${first + 2}`);
      expect(await linkMarks()).toEqual(['world-', 'entry✓', 'record-', 'log✓']);
      expect(await textOf(page, 'tr.link[data-link="record"] td:nth-child(4)')).toBe(
        "not visible to this session (another episode's)",
      );
      expect(await textOf(page, 'p.summary')).toBe(
        'all 2 link(s) verified (2 not visible to this session)',
      );
      await page.goto(`${w.url}/workbench/entry/${first + 2}`);
      expect(await linkMarks()).toEqual(['world-', 'entry✓', 'record-']);
      expect(await textOf(page, 'p.summary')).toBe(
        'all 1 link(s) verified (2 not visible to this session)',
      );
      // its record is a named stop, never a link to a page this session may not open
      const hiddenEntry = (await w.get(`/v1/log/${first + 2}`)).json;
      expect(await page.$$eval('main a', (as) => as.map((a) => a.getAttribute('href')))).toEqual([
        `/workbench/entry/${first + 2}`,
        `/workbench/entry/${first + 1}`,
        `/workbench/objects/${hiddenEntry.header.transitionFn}`,
        `/workbench/objects/${hiddenEntry.header.interpreter}`,
        `/workbench/entry/${first + 2}`,
        `/workbench/why?target=${first + 2}`,
        '/workbench/checkpoint',
        `/workbench/proof/inclusion?index=${first + 2}&size=${first + 8}`,
      ]);
      expect(await textOf(page, 'dd.transition-ref')).toBe(
        `${hiddenEntry.transitionRef} stop: not visible to this session (another episode's)`,
      );
      // the published transition source opens for a session too
      await page.click('dd.transition-fn a');
      expect(await textOf(page, 'main dl dd')).toBe(hiddenEntry.header.transitionFn);
      const episode = await page.goto(`${w.url}/workbench/episodes/wb`);
      expect(episode!.status()).toBe(404);
      // the Overview: its own call and the genesis by outcome, every other entry hidden; no
      // replica, no latency per phase (every episode's calls), said so in their place
      await page.goto(`${w.url}/workbench/overview`);
      const head = first + 7;
      expect(await textOf(page, '#head-index')).toBe(`#${head}`);
      const rate = await page.$$eval('#rate tbody tr', (trs) =>
        trs.map((tr) => Array.from(tr.children).map((td: any) => (td.textContent ?? '').trim())),
      );
      const sum = (col: number) => rate.reduce((n, r) => n + Number(r[col]), 0);
      expect([sum(1), sum(2), sum(3), sum(4), sum(5)]).toEqual([2, 0, 0, 0, head + 1 - 2]);
      expect(await page.$$('#replicas, #latency, #survey-status, #survey-gaps')).toEqual([]);
      expect(await textOf(page, '#operator-only')).toBe(
        "Services, replicas and latency per phase are shown to the operator credential only: they describe every episode's calls, not this one's.",
      );
      await context.close();
      const anonymous = await browser.newContext();
      const bare = await anonymous.newPage();
      const res = await bare.goto(`${w.url}/workbench`);
      expect(res!.status()).toBe(401);
      expect(await textOf(bare, 'main p')).toContain('Run world workbench (operator)');
      const used = await fetch(`${w.url}/workbench/login?ticket=${'0'.repeat(64)}`);
      expect(used.status).toBe(401);
      await anonymous.close();
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'with JavaScript off the timeline and entry pages render the same rows; the keyboard reaches every link',
    async () => {
      const context = await loggedIn(w.operatorToken, false);
      const page = await context.newPage();
      await page.goto(`${w.url}/workbench?limit=3`);
      expect((await rowsOf(page)).map((r) => r[0])).toEqual([
        `#${first + 7}`,
        `#${first + 6}`,
        `#${first + 5}`,
      ]);
      expect(await textOf(page, '#live')).toMatch(
        new RegExp(`^checked \\d\\d:\\d\\d:\\d\\d, newest entry #${first + 7}$`),
      );
      /** Whether Tab, pressed `others` times more than the page has links, reaches each link. */
      const tabReachesEveryLink = async (others: number) => {
        const hrefs = await page.$$eval('a', (as) => as.map((a) => a.getAttribute('href')));
        const reached: string[] = [];
        for (let n = 0; n < hrefs.length + others; n += 1) {
          await page.keyboard.press('Tab');
          const href = await page.evaluate(() =>
            (globalThis as any).document.activeElement?.getAttribute('href'),
          );
          if (href) reached.push(href);
        }
        expect(new Set(reached)).toEqual(new Set(hrefs));
      };
      // the form's controls come first: two time inputs take one stop per date and time field
      await tabReachesEveryLink(40);
      // the entry page: every ref a link, each raw JSON behind a summary (a stop of its own)
      await page.goto(`${w.url}/workbench/entry/${first + 2}`);
      expect(await textOf(page, 'p.summary')).toBe('all 7 link(s) verified');
      expect(await page.$$eval('.diff pre span', (s) => s.map((x) => x.textContent))).toEqual([
        '-line two',
        '+line 2',
      ]);
      await tabReachesEveryLink(await page.$$eval('summary', (s) => s.length + 1));
      await context.close();
    },
    E2E_TIMEOUT_MS,
  );

  it(
    "POST /agui with @ag-ui/client's HttpAgent: RUN_STARTED, STATE_SNAPSHOT, one CUSTOM per entry, STATE_DELTA, RUN_FINISHED",
    async () => {
      const agent = new HttpAgent({
        url: `${w.url}/agui`,
        headers: { authorization: `Bearer ${token}` },
      });
      const events: Array<Record<string, any>> = [];
      await new Promise<void>((resolve, reject) =>
        agent
          .run({
            threadId: 't1',
            runId: 'r1',
            state: { cursor: first + 6 },
            messages: [],
            tools: [],
            context: [],
            forwardedProps: {},
          })
          .subscribe({ next: (e) => void events.push(e), error: reject, complete: resolve }),
      );
      expect(events.map((e) => e.type)).toEqual([
        'RUN_STARTED',
        'STATE_SNAPSHOT',
        'CUSTOM',
        'STATE_DELTA',
        'CUSTOM',
        'STATE_DELTA',
        'RUN_FINISHED',
      ]);
      expect(events[1]!.snapshot).toEqual({ cursor: first + 6 });
      expect(events[2]!.name).toBe('world.entry.committed');
      expect(events[2]!.value).toEqual((await w.get(`/v1/log/${first + 6}`)).json);
      expect(events[5]!.delta).toEqual([{ op: 'replace', path: '/cursor', value: first + 8 }]);
    },
    E2E_TIMEOUT_MS,
  );

  if (mode === 'distributed')
    it(
      "a header row altered in the database: ✗ on its own entry hash and on the next entry's prev link, nothing else; world why names the refusal",
      async () => {
        const index = first + 4;
        const db = new pg.Client({ connectionString: w.databaseUrl });
        await db.connect();
        const before = (await w.get(`/v1/log/${index}`)).json;
        await db.query(
          "UPDATE ledger.log_entries SET written_by = 'coordinator:a2a' WHERE entry_index = $1",
          [index],
        );
        try {
          const fields = entryHash(
            { ...before.header, writtenBy: 'coordinator:a2a' },
            before.transitionRef,
          );
          const context = await loggedIn(w.operatorToken);
          const page = await context.newPage();
          const linkMarks = () =>
            page.$$eval('table.links tr.link', (trs) =>
              trs.map(
                (tr) =>
                  `${tr.children[1]!.textContent!.trim()}${tr.children[0]!.textContent!.trim()}`,
              ),
            );
          const own = await page.goto(`${w.url}/workbench/entry/${index}`);
          expect(own!.status()).toBe(200);
          expect(await textOf(page, 'dd.entry-hash')).toBe(
            `${before.entryHash} ✗ fields hash to ${fields}, stored hash ${before.entryHash}`,
          );
          expect(await textOf(page, 'tr.link[data-link="entry"] td:nth-child(4)')).toBe(
            `fields hash to ${shortRef(fields)}, not its stored hash ${shortRef(before.entryHash)}`,
          );
          const next = await page.goto(`${w.url}/workbench/entry/${index + 1}`);
          expect(next!.status()).toBe(200);
          expect(await linkMarks()).toEqual([
            'world✓',
            'entry✗',
            'record✓',
            'input✓',
            'plan✓',
            'effect✓',
            'output✓',
          ]);
          expect(await textOf(page, 'tr.link[data-link="entry"] td:nth-child(4)')).toBe(
            `entry #${index}'s fields hash to ${shortRef(fields)}, not its stored hash ${shortRef(before.entryHash)}: prev cannot be linked`,
          );
          expect(await textOf(page, 'dd.entry-hash')).toMatch(/ ✓$/);
          // the header's prev: the hash entry #index's own fields no longer hash to
          expect(await textOf(page, 'dd.prev')).toBe(
            `${before.entryHash} ✗ entry #${index}'s fields hash to ${shortRef(fields)}, not its stored hash ${shortRef(before.entryHash)}: prev cannot be linked`,
          );
          const why = await page.goto(`${w.url}/workbench/why?target=${index + 1}`);
          expect(why!.status()).toBe(200);
          expect(await textOf(page, 'p.summary')).toBe('1 of 8 link(s) broken');
          await page.goto(`${w.url}/workbench/entry/${index + 2}`);
          expect(await textOf(page, 'p.summary')).toBe('all 7 link(s) verified');
          await context.close();
          // /v1 still refuses the entry: the CLI names World's refusal as its stop (exit 3).
          const env = { WORLD_URL: w.url, WORLD_HOME: w.paths.home };
          const problem = `log entry ${index} (${before.entryHash}) has fields that hash to ${fields}`;
          expect(await runCli(['why', String(index)], env)).toEqual({
            code: 3,
            signal: null,
            stdout: [
              `why: entry ${index}`,
              `  ✗ entry   -  World refuses to serve log entry ${index} as valid: stored object corrupt: ${problem}`,
              '1 of 1 link(s) broken',
              '',
            ].join('\n'),
            stderr: '',
          });
          // The live stream delivers it flagged, and goes on past it.
          const agent = new HttpAgent({
            url: `${w.url}/agui`,
            headers: { authorization: `Bearer ${w.operatorToken}` },
          });
          const events: Array<Record<string, any>> = [];
          await new Promise<void>((resolve, reject) =>
            agent
              .run({
                threadId: 't2',
                runId: 'r2',
                state: { cursor: index },
                messages: [],
                tools: [],
                context: [],
                forwardedProps: {},
              })
              .subscribe({ next: (e) => void events.push(e), error: reject, complete: resolve }),
          );
          const entries = events.filter((e) => e.type === 'CUSTOM').map((e) => e.value);
          expect([events[0]!.type, events.at(-1)!.type]).toEqual(['RUN_STARTED', 'RUN_FINISHED']);
          expect([entries[0]!.header.entryIndex, entries[0]!.corrupt]).toEqual([index, problem]);
          expect(entries.slice(1).map((e) => [e.corrupt, e.header.entryIndex - index])).toEqual(
            entries.slice(1).map((_e, i) => [undefined, i + 1]),
          );
        } finally {
          await db.query('UPDATE ledger.log_entries SET written_by = $2 WHERE entry_index = $1', [
            index,
            before.header.writtenBy,
          ]);
          await db.end();
        }
      },
      E2E_TIMEOUT_MS,
    );

  if (mode === 'distributed')
    it(
      'the why page marks ✗ the output altered in the database',
      async () => {
        const db = new pg.Client({ connectionString: w.databaseUrl });
        await db.connect();
        const entry = (await w.get(`/v1/log/${first}`)).json;
        const record = await w.payload(entry.transitionRef, w.operatorToken);
        await db.query(
          "UPDATE ledger.objects SET payload = convert_to(replace(convert_from(payload, 'UTF8'), 'line one', 'line 0ne'), 'UTF8') WHERE hash = $1",
          [record.output],
        );
        await db.end();
        const context = await loggedIn(w.operatorToken);
        const page = await context.newPage();
        await page.goto(`${w.url}/workbench/why?target=${first}`);
        expect(
          await page.$$eval('table.links tr.link', (trs) =>
            trs.map(
              (tr) =>
                `${tr.children[1]!.textContent!.trim()}${tr.children[0]!.textContent!.trim()}`,
            ),
          ),
        ).toEqual(['world✓', 'entry✓', 'record✓', 'input✓', 'plan✓', 'effect✓', 'output✗', 'log✓']);
        expect(await textOf(page, 'p.summary')).toBe('1 of 8 link(s) broken');
        await context.close();
      },
      E2E_TIMEOUT_MS,
    );

  // Last: a tree row altered under a signed checkpoint must never be signed over (no commit follows).
  if (mode === 'distributed')
    it(
      'the entry page marks ✗ an inclusion proof whose tree row was altered in the database',
      async () => {
        const size = first + 8;
        const index = first + 2;
        const proof = (await w.get(`/v1/proof/inclusion?index=${index}&size=${size}`)).json;
        const db = new pg.Client({ connectionString: w.databaseUrl });
        await db.connect();
        const altered = await db.query(
          "UPDATE ledger.tree_nodes SET hash = sha256(hash) WHERE hash = decode($1, 'base64')",
          [proof.hashes[0]],
        );
        await db.end();
        expect(altered.rowCount).toBe(1);
        const context = await loggedIn(w.operatorToken);
        const page = await context.newPage();
        await page.goto(`${w.url}/workbench/entry/${index}`);
        const rows = await proofRows(page);
        expect(rows.slice(3, 6)).toEqual([
          ['signature', '✓ signed by the log key'],
          ['leaf index', String(index)],
          ['tree size', String(size)],
        ]);
        expect(rows[7]![1]).toMatch(
          new RegExp(
            `^✗ root recomputed from entry ${index}'s bytes: inclusion proof for index ${index} computes root [A-Za-z0-9+/]{43}=, not the tree's root ${rows[2]![1]!.replace(/[+/]/g, '\\$&')}$`,
          ),
        );
        await context.close();
      },
      E2E_TIMEOUT_MS,
    );
});
