import { INTEGRITY_REPORT_MAX_PROBLEMS } from '@world/contracts';
import { readiness } from './health.js';
import { IntegrityScan, startIntegrityScan } from './integrity.js';
import { captureLogs } from './logger.js';

describe('IntegrityScan (world-spec §2.18: within 20,000 rows and 2 s)', () => {
  it('stays within budget until either the rows or the time run out', () => {
    let now = 1_000;
    const byRows = new IntegrityScan('ledger', { maxRows: 3, budgetMs: 100 }, () => now);
    byRows.counted(2);
    expect(byRows.withinBudget()).toBe(true);
    byRows.counted(1);
    expect(byRows.withinBudget()).toBe(false);
    const byTime = new IntegrityScan('ledger', { maxRows: 3, budgetMs: 100 }, () => now);
    now += 100;
    expect(byTime.withinBudget()).toBe(false);
  });

  it('logs each problem once as integrity_hole, lists the first ones and counts them all', () => {
    const logs = captureLogs('info');
    try {
      const scan = new IntegrityScan('broker');
      scan.problem(null);
      for (let i = 0; i < INTEGRITY_REPORT_MAX_PROBLEMS + 2; i++) scan.problem(`p${i}`);
      const report = scan.finish();
      const listed = Array.from({ length: INTEGRITY_REPORT_MAX_PROBLEMS }, (_, i) => `p${i}`);
      expect(report).toEqual({
        state: 'mismatch',
        scanned: 0,
        mismatches: INTEGRITY_REPORT_MAX_PROBLEMS + 2,
        problems: listed,
        complete: true,
      });
      expect(logs.records.map((l) => [l.msg, l.service, l.level, l.problem])).toEqual(
        listed.map((p) => ['integrity_hole', 'broker', 50, p]),
      );
    } finally {
      logs.stop();
    }
  });

  it('logs nothing for a clean, complete scan, and integrity_scan_incomplete with where a budget stopped it', () => {
    const logs = captureLogs('info');
    try {
      expect(new IntegrityScan('ledger').finish()).toEqual({
        state: 'clean',
        scanned: 0,
        mismatches: 0,
        problems: [],
        complete: true,
      });
      const stopped = new IntegrityScan('ledger');
      stopped.counted(7);
      expect(stopped.finish('entries below #9')).toEqual({
        state: 'clean',
        scanned: 7,
        mismatches: 0,
        problems: [],
        complete: false,
        resume: 'entries below #9',
      });
      expect(logs.records.map((l) => [l.msg, l.level, l.scanned, l.resume])).toEqual([
        ['integrity_scan_incomplete', 40, 7, 'entries below #9'],
      ]);
    } finally {
      logs.stop();
    }
  });

  it('ends a scan whose read failed as incomplete, keeping what it found', async () => {
    const { report, done } = startIntegrityScan('ledger', async (scan) => {
      scan.counted(2);
      scan.problem('p');
      throw new Error('connection lost');
    });
    expect(report().state).toBe('scanning');
    expect(await done).toEqual({
      state: 'mismatch',
      scanned: 2,
      mismatches: 1,
      problems: ['p'],
      complete: false,
      resume: 'a read failed after 2 row(s)',
    });
  });
});

describe('readiness with an integrity report (world-spec §2.18)', () => {
  it('shows each service’s report and stays ready whatever it found', async () => {
    const report = {
      state: 'mismatch' as const,
      scanned: 3,
      mismatches: 1,
      problems: ['p'],
      complete: true,
    };
    expect(
      await readiness({ database: async () => undefined, integrity: () => ({ ledger: report }) }),
    ).toEqual({
      httpStatus: 200,
      report: { status: 'ready', checks: { database: 'ok' }, integrity: { ledger: report } },
    });
  });
});
