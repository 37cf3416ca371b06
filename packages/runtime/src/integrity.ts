/**
 * The start-up integrity scan's bookkeeping, shared by every service that owns hashed data
 * (world-spec §2.18; DESIGN.md §3 "Each owner scans its hashed data at start"): the two budgets
 * (INTEGRITY_SCAN_MAX_ROWS rows, INTEGRITY_SCAN_BUDGET_MS), the problems found, the operator's
 * log lines and the report `GET /readyz` shows. What to scan, and in which order (newest first),
 * is each owner's; history is never rewritten, only reported.
 */
import {
  INTEGRITY_REPORT_MAX_PROBLEMS,
  INTEGRITY_SCAN_BUDGET_MS,
  INTEGRITY_SCAN_MAX_ROWS,
  type IntegrityReport,
} from '@world/contracts';
import { serviceLogger } from './logger.js';

/** The budgets of one scan (the named limits unless a test narrows them). */
export interface IntegrityBudget {
  maxRows: number;
  budgetMs: number;
}

/** The budgets world-spec §2.18 names: 20,000 rows, 2 s. */
export const INTEGRITY_BUDGET: IntegrityBudget = {
  maxRows: INTEGRITY_SCAN_MAX_ROWS,
  budgetMs: INTEGRITY_SCAN_BUDGET_MS,
};

/**
 * One running scan. Each problem is logged once as `integrity_hole` (error level, up to
 * INTEGRITY_REPORT_MAX_PROBLEMS lines; the rest are counted); a scan a budget stopped logs
 * `integrity_scan_incomplete` with where it stopped. A clean, complete scan logs nothing.
 */
export class IntegrityScan {
  private readonly log;
  private readonly started: number;
  private state: IntegrityReport = {
    state: 'scanning',
    scanned: 0,
    mismatches: 0,
    problems: [],
    complete: false,
  };

  constructor(
    readonly service: string,
    private readonly budget: IntegrityBudget = INTEGRITY_BUDGET,
    private readonly clock: () => number = Date.now,
  ) {
    this.log = serviceLogger(service);
    this.started = clock();
  }

  /** The report so far (a copy). */
  report(): IntegrityReport {
    return { ...this.state, problems: [...this.state.problems] };
  }

  /** True while neither budget has ended. */
  withinBudget(): boolean {
    return (
      this.state.scanned < this.budget.maxRows && this.clock() - this.started < this.budget.budgetMs
    );
  }

  /** Counts rows checked. */
  counted(rows: number): void {
    this.state.scanned += rows;
  }

  /** Records (and logs) one problem; null is no problem. */
  problem(text: string | null): void {
    if (text === null) return;
    this.state.mismatches += 1;
    if (this.state.problems.length >= INTEGRITY_REPORT_MAX_PROBLEMS) return;
    this.state.problems.push(text);
    this.log.error({ problem: text }, 'integrity_hole');
  }

  /**
   * Ends the scan.
   * @param resume where it stopped, when a budget (or a failed read) ended it before the oldest row
   */
  finish(resume?: string): IntegrityReport {
    this.state.state = this.state.mismatches === 0 ? 'clean' : 'mismatch';
    this.state.complete = resume === undefined;
    if (resume !== undefined) {
      this.state.resume = resume;
      this.log.warn(
        { scanned: this.state.scanned, mismatches: this.state.mismatches, resume },
        'integrity_scan_incomplete',
      );
    }
    return this.report();
  }
}

/**
 * Runs a service's scan in the background (start-up is not delayed; `/readyz` shows `scanning`
 * until it ends). A read that fails ends the scan as incomplete at the position it had reached.
 * @param scan checks rows newest first and returns undefined when it reached the oldest, else
 *   where it stopped
 * @returns the live report, and a promise of the final one (never rejects)
 */
export function startIntegrityScan(
  service: string,
  scan: (s: IntegrityScan) => Promise<string | undefined>,
  budget: IntegrityBudget = INTEGRITY_BUDGET,
): { report: () => IntegrityReport; done: Promise<IntegrityReport> } {
  const s = new IntegrityScan(service, budget);
  const done = scan(s).then(
    (resume) => s.finish(resume),
    (err: unknown) => {
      serviceLogger(service).warn({ err }, 'integrity scan failed');
      return s.finish(`a read failed after ${s.report().scanned} row(s)`);
    },
  );
  return { report: () => s.report(), done };
}
