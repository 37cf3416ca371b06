import { Inject, Injectable } from '@nestjs/common';
import { and, asc, eq, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import type { WorldObject } from '@world/canonical';
import { LeaseLostError, NoHandlerError } from '@world/contracts';
import { DATABASE, type DatabaseHandle, type RawQuery } from '@world/runtime';
import { effectIntents, effectOutcomes, episodes } from '../db/schema.js';
import type { Bind } from '../db/statement.js';
import { EpisodesRepository } from '../episodes/episodes.repository.js';
import { ObjectsRepository } from '../objects/objects.repository.js';
import {
  ALLOWED_START,
  DENIED_START,
  FINISH,
  FREE_START,
  SPEND,
  intentValues,
  recordValues,
} from './effects.statements.js';
import { spendKey, type SpendMap } from './spend-key.js';
import type { AllowedStart, EffectStart, RecordRow } from './effect-start.js';

export { spendKey, type SpendMap };

/** The columns of an IntentState: an intent with its outcome's status and record, if any. */
const INTENT_STATE_COLUMNS = {
  invocationId: effectIntents.invocationId,
  episodeId: effectIntents.episodeId,
  ordinal: effectIntents.ordinal,
  effect: effectIntents.effect,
  scope: effectIntents.scope,
  cost: effectIntents.cost,
  status: effectOutcomes.status,
  recordRef: effectOutcomes.recordRef,
};
/** The join of an intent and its outcome: the same episode and ordinal (world-internals §5.5). */
const OUTCOME_OF_INTENT = and(
  eq(effectOutcomes.episodeId, effectIntents.episodeId),
  eq(effectOutcomes.ordinal, effectIntents.ordinal),
)!;
/** An intent with its outcome (null while indeterminate). */
export interface IntentState {
  invocationId: string;
  episodeId: string;
  ordinal: number;
  effect: string;
  scope: string;
  cost: number;
  status: 'succeeded' | 'failed' | null;
  recordRef: string | null;
}

/** Where a page of outcomes starts: just after this intent. */
export interface OutcomeCursor {
  logicalTime: number;
  episodeId: string;
  ordinal: number;
}

/** The only code touching `broker.spend`, `effect_intents`, `effect_outcomes`, `effect_records`. */
@Injectable()
export class EffectsRepository {
  constructor(@Inject(DATABASE) private readonly database: DatabaseHandle) {}

  /**
   * tx1 (world-internals §5.2), in one transaction on one connection:
   * 1. locks the episode row FOR UPDATE and either checks the caller's fence or takes the lease
   *    (`acquire`: when free or expired, fence += 1, in the same statement as the lock; the
   *    contract's "a lease to take in the same transaction");
   * 2. reads the episode's spend (after the lock, so it is the latest committed spend) and lets
   *    `decide` choose what to write (a pure function of the spend);
   * 3. writes, in one statement, either the denial (request object, record object, record row;
   *    nothing spent, no intent) or the allowed start (request object, spend += cost, intent with
   *    ordinal max+1 computed inside the INSERT under the row lock).
   * All or nothing: when the lease is held by another live holder nothing is written (the lock
   * is released at once) and the holder's expiry is returned, for the caller to wait and retry.
   * @returns the start with the fence it ran under (tookOver when an expired holder was
   *   replaced) and the minted ordinal when allowed, or `heldUntil` when the lease is held
   * @throws LeaseLostError when the fence is not the lease's current one (nothing written);
   *   NoHandlerError when `acquire` finds no episode row (nothing written)
   */
  async begin<S extends EffectStart>(
    episodeId: string,
    lease: { fence: number },
    decide: (spent: SpendMap) => S,
  ): Promise<BeginResult<S>>;
  async begin<S extends EffectStart>(
    episodeId: string,
    lease: LeaseClaim,
    decide: (spent: SpendMap) => S,
  ): Promise<BeginResult<S> | { heldUntil: number }>;
  async begin<S extends EffectStart>(
    episodeId: string,
    lease: LeaseClaim,
    decide: (spent: SpendMap) => S,
  ): Promise<BeginResult<S> | { heldUntil: number }> {
    return this.database.transaction(async (query) => {
      let fence: number;
      let tookOver = false;
      if ('fence' in lease) {
        fence = lease.fence;
        const episode = await EpisodesRepository.lock(query, episodeId);
        if (episode === null || episode.leaseHolder === null || episode.leaseFence !== fence) {
          throw new LeaseLostError(episodeId, fence);
        }
      } else {
        const { holder, ttlMs, now } = lease.acquire;
        const claimed = await EpisodesRepository.claim(query, episodeId, holder, ttlMs, now);
        if (claimed === null) throw new NoHandlerError();
        if ('heldUntil' in claimed) return claimed;
        fence = claimed.fence;
        tookOver = claimed.tookOver;
      }
      const start = decide(await spendIn(query, episodeId));
      return { fence, tookOver, start, ordinal: await writeStart(query, episodeId, start) };
    });
  }

  /**
   * tx1's fast path, one autocommit statement (one round trip, one WAL flush) for the common
   * case: the execute path's read (SessionsRepository.findWithEpisode) found the lease free
   * (holder null) at fence `freeFence` and `start` was decided on the spend read in that same
   * snapshot. The statement takes the lease (fence + 1) only if it is STILL free at that fence —
   * checked on the row's latest version under its lock — and every write of the allowed start
   * (request object, spend += cost, intent with ordinal max+1) is gated on that UPDATE, so it
   * writes all or nothing. Why the spend and ordinal read earlier are still current when the
   * guard holds: every spend and intent is written by a lease holder under the episode row lock
   * (tx1); a free lease with an unchanged fence means nobody held it since the read (taking it
   * bumps the fence, and a released holder's fence no longer passes tx1), and the UPDATE holds
   * the row lock until the statement commits.
   * @returns the start under the new fence, or null when the lease was not free at `freeFence`
   *   any more (nothing written; the caller takes the locking path, `begin`)
   */
  async beginFree<S extends AllowedStart>(
    episodeId: string,
    claim: { holder: string; ttlMs: number; now: number; freeFence: number },
    start: S,
  ): Promise<BeginResult<S> | null> {
    const [row] = (
      await FREE_START(start.objects.length).run<{
        ordinal: string | number;
        fence: string | number;
      }>(this.database.query, {
        ...intentValues(episodeId, start.intent),
        holder: claim.holder,
        freeFence: claim.freeFence,
        expiresAt: claim.now + claim.ttlMs,
        ...ObjectsRepository.insertValues(start.objects),
      })
    ).rows;
    if (row === undefined) return null;
    return { fence: Number(row.fence), tookOver: false, start, ordinal: Number(row.ordinal) };
  }

  /**
   * tx2 (world-internals §2.3): result object (when any), record object, record row, then the
   * outcome of the record row's episode at `ordinal`, as one autocommit statement (one round
   * trip, one WAL flush): its writes become durable together or not at all. `beforeOutcome`
   * (the `before-outcome` crash point) runs just before the statement is sent, so a crash there
   * leaves nothing of tx2 durable: the intent stays indeterminate (world-internals §5.5).
   * A broker killed while the statement waits on a lock leaves nothing either: every connection
   * runs with `client_connection_check_interval` (runtime POSTGRES_SESSION_OPTIONS), so the
   * backend cancels the orphaned statement within CLIENT_CHECK_INTERVAL_MS of the death instead
   * of committing it once the lock frees. A lock that frees inside that window lets the statement
   * commit whole — record and outcome together, the intent resolved, which is true: the handler
   * ran — the same window a crash right after the statement was sent leaves (and tx1's free path
   * and the ledger's one-statement commit accept); an explicit BEGIN … COMMIT would close it at
   * the cost of two round trips per call.
   */
  async finish(
    ordinal: number,
    objects: WorldObject[],
    record: RecordRow,
    status: 'succeeded' | 'failed',
    beforeOutcome: () => void,
  ): Promise<void> {
    const tx2 = FINISH(objects.length);
    const values = {
      ...recordValues(record),
      ordinal,
      status,
      ...ObjectsRepository.insertValues(objects),
    };
    beforeOutcome();
    await tx2.run(this.database.query, values);
  }

  /** An invocation's intents in (episode, ordinal) order, with their outcomes. */
  async byInvocation(invocationId: string): Promise<IntentState[]> {
    return this.intentStates(eq(effectIntents.invocationId, invocationId));
  }

  /** Every intent without an outcome (world-internals §5.5). */
  async indeterminate(): Promise<IntentState[]> {
    return this.intentStates(isNull(effectOutcomes.ordinal));
  }

  /**
   * The intents without an outcome that no live replica can still finish (world-internals
   * §5.5): the episode's lease is not live (released, or expired at `nowMs`:
   * the broker renews it from tx1 until its reply, so a handler or tx2 still running holds it),
   * a later intent of the same episode exists (a later call took the lease), or the intent is
   * older than the longest call could last. An intent of a live call — its episode's lease
   * held and it the episode's latest — is not named: its outcome may still be written.
   * @param nowMs the broker's clock (lease expiries are written by it), epoch ms
   * @param longestCallMs how long a call can hold its intent open at most
   * @param episodeId only this episode's intents (all episodes when absent)
   */
  async orphaned(nowMs: number, longestCallMs: number, episodeId?: string): Promise<IntentState[]> {
    return this.intentStates(
      and(
        episodeId === undefined ? undefined : eq(effectIntents.episodeId, episodeId),
        isNull(effectOutcomes.ordinal),
        or(
          EpisodesRepository.leaseNotLive(nowMs),
          lt(effectIntents.logicalTime, nowMs - longestCallMs),
          sql`EXISTS (SELECT 1 FROM broker.effect_intents later
                       WHERE later.episode_id = ${effectIntents.episodeId}
                         AND later.ordinal > ${effectIntents.ordinal})`,
        ),
      )!,
      true,
    );
  }

  /**
   * Intents with their outcome, written at or before `atOrBefore` (epoch ms, the intent's
   * logical time), after `cursor` in (logical time, episode, ordinal) order, at most `limit`:
   * the keyset pages of ReportUncommitted.
   */
  async outcomesAfter(
    cursor: OutcomeCursor,
    atOrBefore: number,
    limit: number,
  ): Promise<Array<IntentState & { logicalTime: number }>> {
    const rows = await outcomesAfterQuery(this.database, cursor, atOrBefore, limit);
    return rows.map((r) => ({ ...r, status: r.status as IntentState['status'] }));
  }

  /** The episode's spend per (effect, scope): Σ cost of its intents (`broker.spend`). */
  async spendOf(episodeId: string): Promise<SpendMap> {
    return spendIn(this.database.query, episodeId);
  }

  /**
   * The episode's spend as one JSON value for another statement's select list (the execute
   * path's one read, SessionsRepository.findWithEpisode): `[{effect, scope, spent}]`.
   */
  static spendJsonSql(bind: Bind<'episodeId'>): string {
    return `(SELECT coalesce(json_agg(json_build_object('effect', sp.effect, 'scope', sp.scope,
        'spent', sp.spent)), '[]'::json)
      FROM broker.spend sp WHERE sp.episode_id = ${bind('episodeId', 'text')})`;
  }

  private async intentStates(where: SQL, withEpisode = false): Promise<IntentState[]> {
    const rows = await this.database.db
      .select(INTENT_STATE_COLUMNS)
      .from(effectIntents)
      .leftJoin(effectOutcomes, OUTCOME_OF_INTENT)
      .leftJoin(episodes, withEpisode ? eq(episodes.id, effectIntents.episodeId) : sql`false`)
      .where(where)
      .orderBy(asc(effectIntents.episodeId), asc(effectIntents.ordinal));
    return rows.map((r) => ({ ...r, status: r.status as IntentState['status'] }));
  }
}

/** How `begin` holds the episode: the caller's fence, or a lease to take in tx1. */
export type LeaseClaim =
  { fence: number } | { acquire: { holder: string; ttlMs: number; now: number } };

/** What tx1 wrote and under which fence. */
export interface BeginResult<S extends EffectStart = EffectStart> {
  fence: number;
  tookOver: boolean;
  start: S;
  /** the intent's ordinal when allowed, null for a denial */
  ordinal: number | null;
}

/** The episode's spend per (effect, scope), read on `query` (inside tx1: after the row lock). */
async function spendIn(query: RawQuery, episodeId: string): Promise<Map<string, number>> {
  const { rows } = await SPEND.run<{ effect: string; scope: string; spent: string | number }>(
    query,
    { episodeId },
  );
  return new Map(rows.map((r) => [spendKey(r.effect, r.scope), Number(r.spent)]));
}

/**
 * tx1's writes after the lease is held (world-internals §5.2), in one statement: a denial's
 * objects and record row, or an allowed start's request object, spend += cost and intent.
 * @returns the minted ordinal when allowed, null for a denial
 */
async function writeStart(
  query: RawQuery,
  episodeId: string,
  start: EffectStart,
): Promise<number | null> {
  const objects = ObjectsRepository.insertValues(start.objects);
  if (start.kind === 'denied') {
    await DENIED_START(start.objects.length).run(query, {
      ...recordValues(start.record),
      ...objects,
    });
    return null;
  }
  const [row] = (
    await ALLOWED_START(start.objects.length).run<{ ordinal: string | number }>(query, {
      ...intentValues(episodeId, start.intent),
      ...objects,
    })
  ).rows;
  return Number(row!.ordinal);
}

/**
 * The statement of EffectsRepository.outcomesAfter (awaiting it runs it; `toSQL()` names it). Its
 * keyset order is the index `effect_intents_by_logical_time` (drizzle/0002_outcome_order.sql), so
 * a page reads `limit` index entries instead of sorting every intent.
 * @internal exported for test/integration/outcome-order.int-spec.ts
 */
export function outcomesAfterQuery(
  database: DatabaseHandle,
  cursor: OutcomeCursor,
  atOrBefore: number,
  limit: number,
) {
  return database.db
    .select({ ...INTENT_STATE_COLUMNS, logicalTime: effectIntents.logicalTime })
    .from(effectIntents)
    .innerJoin(effectOutcomes, OUTCOME_OF_INTENT)
    .where(
      and(
        sql`(${effectIntents.logicalTime}, ${effectIntents.episodeId}, ${effectIntents.ordinal})
            > (${cursor.logicalTime}, ${cursor.episodeId}, ${cursor.ordinal})`,
        sql`${effectIntents.logicalTime} <= ${atOrBefore}`,
      ),
    )
    .orderBy(
      asc(effectIntents.logicalTime),
      asc(effectIntents.episodeId),
      asc(effectIntents.ordinal),
    )
    .limit(limit);
}
