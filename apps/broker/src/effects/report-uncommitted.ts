import { Inject, Injectable } from '@nestjs/common';
import {
  COORDINATOR_INVOCATION_ID,
  PAGE_MAX,
  ServiceUnavailableError,
  TransportTimeoutError,
  deadlineTable,
  type ReplyOf,
} from '@world/contracts';
import { REPLICA, RPC, serviceLogger, type RpcClient } from '@world/runtime';
import { BROKER_SETTINGS, type BrokerSettings } from '../settings.js';
import { EffectsRepository, type OutcomeCursor } from './effects.repository.js';
import { longestCallMs } from './recover-intents.js';

const log = serviceLogger('broker');

/** The operator line of an effect outcome whose invocation never committed. */
const UNCOMMITTED_OUTCOME_LINE =
  'effect outcome whose invocation never committed: it ran and is recorded, and it has no log entry';

/** Ledger questions in flight at once while a page of outcomes is checked. */
const LEDGER_ASKS_AT_ONCE = 8;
/**
 * Pages one sweep reads at most: a broker's first sweep over a long history is spread over the
 * following sweeps (every ORPHAN_SWEEP_MS) instead of flooding the ledger at boot and holding up
 * the broker's shutdown, which waits for the sweep in flight.
 */
const PAGES_PER_SWEEP = 4;

/** An effect that ran and was recorded under an invocation that never committed. */
export interface UncommittedOutcome {
  invocationId: string;
  episodeId: string;
  ordinal: number;
  effectRecords: string[];
}

/**
 * How long after its intent an outcome's invocation is settled: no live call can still commit
 * it. A keyed call's claim lapses `leaseTtlMs` after it was taken (before the intent), and no
 * call outlives longestCallMs; the later of the two.
 */
function settledAfterMs(callDeadlineMs: number): number {
  return Math.max(longestCallMs(callDeadlineMs), deadlineTable(callDeadlineMs).leaseTtlMs);
}

/**
 * The sweep's second report (world-internals §5.5 "effects unrecorded"; world-spec §4.5): an
 * effect whose outcome and record were written but whose coordinator invocation (`a2a:`/`mcp:`)
 * has no commit — its planner died or gave its claim up between effect and commit. Each
 * outcome whose intent is older than settledAfterMs is checked once against the ledger's
 * journal (`ledger.invocation.get`); one not committed is named on the operator log (invocation
 * id, episode, effect record refs), once per replica, like the orphaned intents; a committed one
 * is passed. Outcomes are paged by a cursor this replica keeps, so each is checked once (at most
 * PAGES_PER_SWEEP pages per sweep); a
 * ledger that does not answer leaves the cursor where it was, for the next sweep.
 */
@Injectable()
export class ReportUncommitted {
  private cursor: OutcomeCursor = { logicalTime: -1, episodeId: '', ordinal: -1 };

  constructor(
    private readonly effects: EffectsRepository,
    @Inject(RPC) private readonly rpc: RpcClient,
    @Inject(REPLICA) private readonly replica: string,
    @Inject(BROKER_SETTINGS) private readonly settings: BrokerSettings,
  ) {}

  /**
   * Checks the settled outcomes not checked yet and reports the uncommitted ones.
   * @returns the outcomes reported now, grouped by invocation; when no ledger answers, those
   *   reported before it stopped (the rest are checked by the next sweep)
   */
  async sweep(): Promise<UncommittedOutcome[]> {
    const atOrBefore = Date.now() - settledAfterMs(this.settings.callDeadlineMs);
    const reported: UncommittedOutcome[] = [];
    for (let pages = 1; ; pages += 1) {
      const page = await this.effects.outcomesAfter(this.cursor, atOrBefore, PAGE_MAX);
      const coordinator = page.filter((o) => COORDINATOR_INVOCATION_ID.test(o.invocationId));
      const ids = [...new Set(coordinator.map((o) => o.invocationId))];
      const uncommitted = new Set<string>();
      for (let i = 0; i < ids.length; i += LEDGER_ASKS_AT_ONCE) {
        const batch = ids.slice(i, i + LEDGER_ASKS_AT_ONCE);
        let views: Array<ReplyOf<'ledger.invocation.get'>>;
        try {
          views = await Promise.all(
            batch.map((invocationId) =>
              this.rpc.request('ledger.invocation.get', { invocationId }, { timeoutMs: 5_000 }),
            ),
          );
        } catch (err) {
          // No ledger answers now: this page is checked again by the next sweep.
          if (err instanceof ServiceUnavailableError || err instanceof TransportTimeoutError)
            return reported;
          throw err;
        }
        views.forEach((v, j) => {
          if (v.state === 'none' || v.state === 'ended') uncommitted.add(batch[j]!);
        });
      }
      for (const invocationId of ids.filter((id) => uncommitted.has(id))) {
        const mine = coordinator.filter((o) => o.invocationId === invocationId);
        const item = {
          invocationId,
          episodeId: mine[0]!.episodeId,
          ordinal: mine[0]!.ordinal,
          effectRecords: mine.flatMap((o) => (o.recordRef === null ? [] : [o.recordRef])),
        };
        log.warn({ ...item, replica: this.replica }, UNCOMMITTED_OUTCOME_LINE);
        reported.push(item);
      }
      const last = page.at(-1);
      if (last !== undefined)
        this.cursor = {
          logicalTime: last.logicalTime,
          episodeId: last.episodeId,
          ordinal: last.ordinal,
        };
      if (page.length < PAGE_MAX || pages >= PAGES_PER_SWEEP) return reported;
    }
  }
}
