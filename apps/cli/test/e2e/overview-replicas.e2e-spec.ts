/**
 * The workbench Overview over real processes (DESIGN.md §5a): `world up --replicas
 * gateway=2,planner=2` on the test PostgreSQL and NATS. Each gateway's Overview, rendered from its
 * background replica survey, lists exactly the six replicas running — each with the readiness
 * checks and integrity scan its own /readyz reports — and its latency table counts, per phase,
 * the calls made through both gateways (histogram buckets summed across the replicas).
 */
import { readFile } from 'node:fs/promises';
import { CALL_DEADLINE_MS } from '@world/contracts';
import { startUpWorld, type UpWorld } from '../support/up-world.js';

const E2E_TIMEOUT_MS = 300_000;
const CALLS = 6;

/** Text as a page shows it: tags dropped, entities decoded, runs of white space as one space. */
const textOf = (markup: string) =>
  markup
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();

/** The cells of each body row of the table with this id, as text. */
function tableRows(page: string, id: string): string[][] {
  const table = new RegExp(`<table id="${id}">([\\s\\S]*?)</table>`).exec(page);
  if (table === null) throw new Error(`no table #${id} on the page`);
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(table[1]!)![1]!;
  return [...body.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map((tr) =>
    [...tr[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((td) => textOf(td[1]!)),
  );
}

/** A replica's readiness checks as the Overview writes them, from its /readyz body. */
function checksText(ready: { checks: Record<string, string> }): string {
  const names = ['database', 'nats'].filter((n) => ready.checks[n] !== undefined);
  return names.length === 0
    ? 'none apply (in-process bus)'
    : names.map((n) => `${n} ${ready.checks[n]}`).join(', ');
}

describe('Overview over world up --replicas gateway=2,planner=2 (real processes, NATS, PostgreSQL)', () => {
  let w: UpWorld;
  let operator: string;

  beforeAll(async () => {
    w = await startUpWorld('overview', 'gateway=2,planner=2', CALL_DEADLINE_MS);
    await Promise.all(w.up.processes.map((p) => p.ready));
    operator = (await readFile(w.up.operatorTokenFile!, 'utf8')).trim();
  }, E2E_TIMEOUT_MS);

  afterAll(async () => {
    await w?.close();
  }, E2E_TIMEOUT_MS);

  /** The Overview of gateway `g` as the operator sees it, once its survey is newer than `after`. */
  async function overviewAfter(g: number, after: number): Promise<string> {
    // surveys run every 5 s: a minute is many of them, even on a loaded machine
    const giveUpAt = Date.now() + 60_000;
    for (;;) {
      const res = await fetch(`${w.up.gateways[g]}/workbench/overview`, {
        headers: { authorization: `Bearer ${operator}` },
      });
      expect(res.status).toBe(200);
      const page = await res.text();
      if (!page.includes('<p id="survey-status">'))
        throw new Error('the Overview states no replica survey');
      const at = /<p id="survey-status">[\s\S]*?<time datetime="([^"]+)"/.exec(page)?.[1];
      if (at !== undefined && Date.parse(at) > after) return page;
      if (Date.now() > giveUpAt) throw new Error(`no survey newer than ${after} within 60 s`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  it(
    'each gateway lists exactly the replicas running, with their readiness, and counts every call per phase',
    async () => {
      const { token } = await w.episode('ov', { 'notes.txt': 'hello\n' }, [
        { effect: 'Workspace.Read', scope: 'worktree', budget: 50 },
      ]);
      for (let i = 0; i < CALLS; i++) {
        const answer = await w.mcpCall(
          token,
          `ov-${i}`,
          'ailang-read',
          { path: 'notes.txt' },
          i % 2,
        );
        expect(answer.result?.structuredContent?.content).toBe('hello\n');
      }
      const callsDone = Date.now();

      const expected: string[][] = [];
      const order = ['gateway', 'planner', 'broker', 'ledger'];
      const processes = [...w.up.processes].sort(
        (a, b) =>
          order.indexOf(a.service) - order.indexOf(b.service) || (a.replica < b.replica ? -1 : 1),
      );
      expect(processes.map((p) => p.replica)).toEqual([
        'gateway-1',
        'gateway-2',
        'planner-1',
        'planner-2',
        'broker-1',
        'ledger-1',
      ]);
      for (const p of processes) {
        const base =
          p.service === 'gateway'
            ? w.up.gateways[Number(p.replica.slice('gateway-'.length)) - 1]
            : `http://127.0.0.1:${p.healthPort}`;
        const ready = (await (await fetch(`${base}/readyz`)).json()) as {
          status: string;
          checks: Record<string, string>;
          integrity?: Record<string, { scanned: number }>;
        };
        expect(ready.status).toBe('ready');
        const scan = ready.integrity?.[p.service];
        expected.push([
          p.service,
          p.replica,
          'ready',
          checksText(ready),
          scan === undefined
            ? 'owns no hashed data'
            : `${p.service}: clean, ${scan.scanned} rows, complete`,
        ]);
      }

      for (const g of [0, 1]) {
        const page = await overviewAfter(g, callsDone);
        expect(textOf(/<p id="survey-status">([\s\S]*?)<\/p>/.exec(page)![1]!)).toMatch(
          /^surveyed \d\d:\d\d:\d\d UTC, 6 replicas answered within 500 ms$/,
        );
        expect(page).not.toContain('id="survey-gaps"');
        const replicas = tableRows(page, 'replicas');
        expect(replicas.map((r) => r.slice(0, 5))).toEqual(expected);
        // a read plans, takes the lease, runs one effect and commits; it has no finish phase
        expect(tableRows(page, 'latency').map((r) => [r[0], r[1]])).toEqual([
          ['plan', String(CALLS)],
          ['lease', String(CALLS)],
          ['execute', String(CALLS)],
          ['commit', String(CALLS)],
        ]);
      }
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'a replica killed is stated as not answering, with when it last answered; respawned, it answers again',
    async () => {
      const victim = w.up.processes.find((p) => p.replica === 'planner-2')!;
      victim.child.kill('SIGKILL');
      expect(await victim.exited).toEqual({ code: null, signal: 'SIGKILL' });
      const killedAt = Date.now();
      const page = await overviewAfter(0, killedAt);
      expect(textOf(/<p id="survey-status">([\s\S]*?)<\/p>/.exec(page)![1]!)).toMatch(
        /^surveyed \d\d:\d\d:\d\d UTC, 5 replicas answered within 500 ms$/,
      );
      const gaps = /<ul id="survey-gaps">([\s\S]*?)<\/ul>/.exec(page)![1]!;
      expect([...gaps.matchAll(/<li[^>]*>([\s\S]*?)<\/li>/g)].map((li) => textOf(li[1]!))).toEqual([
        expect.stringMatching(
          /^planner-2 \(planner\) did not answer; it last answered the survey of \d\d:\d\d:\d\d UTC$/,
        ),
      ]);
      expect(tableRows(page, 'replicas').map((r) => r[1])).toEqual([
        'gateway-1',
        'gateway-2',
        'planner-1',
        'broker-1',
        'ledger-1',
      ]);

      const fresh = w.up.respawn('planner-2');
      await fresh.ready;
      const back = await overviewAfter(0, Date.now());
      expect(back).not.toContain('id="survey-gaps"');
      expect(tableRows(back, 'replicas').map((r) => r[1])).toEqual([
        'gateway-1',
        'gateway-2',
        'planner-1',
        'planner-2',
        'broker-1',
        'ledger-1',
      ]);
    },
    E2E_TIMEOUT_MS,
  );
});
