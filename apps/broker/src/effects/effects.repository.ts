import { Inject, Injectable } from '@nestjs/common';
import { and, asc, eq, isNull, lt, lte, or, sql, type SQL } from 'drizzle-orm';
import type { WorldObject } from '@world/canonical';
import { LeaseLostError, NoHandlerError, type EffectRecord } from '@world/contracts';
import { DATABASE, type DatabaseHandle } from '@world/runtime';
import { effectIntents, effectOutcomes, episodes } from '../db/schema.js';
import { EpisodesRepository } from '../episodes/episodes.repository.js';
import { ObjectsRepository } from '../objects/objects.repository.js';
import { spendKey, type SpendMap } from './spend-key.js';

export { spendKey, type SpendMap };

/** An effect record bound to the call that produced it. */
export interface RecordRow {
  ref: string;
  episodeId: string;
  invocationId: string;
  record: EffectRecord;
}

/** What the decision inside tx1 chose to write. */
export type EffectStart =
  | { kind: 'denied'; objects: WorldObject[]; record: RecordRow }
  | {
      kind: 'allowed';
      objects: WorldObject[];
      intent: {
        invocationId: string;
        effect: string;
        scope: string;
        cost: number;
        requestRef: string;
        logicalTime: number;
      };
    };

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
   *    `choose` decide;
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
  async begin(
    episodeId: string,
    lease: { fence: number },
    choose: (spent: SpendMap) => EffectStart,
  ): Promise<BeginResult>;
  async begin(
    episodeId: string,
    lease: LeaseClaim,
    choose: (spent: SpendMap) => EffectStart,
  ): Promise<BeginResult | { heldUntil: number }>;
  async begin(
    episodeId: string,
    lease: LeaseClaim,
    choose: (spent: SpendMap) => EffectStart,
  ): Promise<BeginResult | { heldUntil: number }> {
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
      const { rows } = await query<{ effect: string; scope: string; spent: string | number }>(
        SPEND_SQL,
        [episodeId],
        'broker_spend_of_episode',
      );
      const start = choose(
        new Map(rows.map((r) => [spendKey(r.effect, r.scope), Number(r.spent)])),
      );
      const objects = start.objects.length;
      if (start.kind === 'denied') {
        await query(
          `WITH o AS (${ObjectsRepository.insertSql(objects, RECORD_PARAMS + 1)}) ${INSERT_RECORD_SQL}`,
          [...recordParams(start.record), ...ObjectsRepository.insertParams(start.objects)],
          `broker_tx1_denied_${objects}`,
        );
        return { fence, tookOver, start, ordinal: null };
      }
      const { intent } = start;
      const { rows: minted } = await query<{ ordinal: string | number }>(
        `WITH o AS (${ObjectsRepository.insertSql(objects, 8)}), ${INTENT_SQL}`,
        [...intentParams(episodeId, intent), ...ObjectsRepository.insertParams(start.objects)],
        `broker_tx1_allowed_${objects}`,
      );
      return { fence, tookOver, start, ordinal: Number(minted[0]!.ordinal) };
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
  async beginFree(
    episodeId: string,
    claim: { holder: string; ttlMs: number; now: number; freeFence: number },
    start: Extract<EffectStart, { kind: 'allowed' }>,
  ): Promise<BeginResult | null> {
    const { intent } = start;
    const objects = start.objects.length;
    const { rows } = await this.database.query<{
      ordinal: string | number;
      fence: string | number;
    }>(
      `WITH ${FREE_CLAIM_SQL}, o AS (${ObjectsRepository.insertSql(objects, 11, 'EXISTS (SELECT 1 FROM took)')}), ${FREE_INTENT_SQL}`,
      [
        ...intentParams(episodeId, intent),
        claim.holder,
        claim.freeFence,
        claim.now + claim.ttlMs,
        ...ObjectsRepository.insertParams(start.objects),
      ],
      `broker_tx1_free_${objects}`,
    );
    const row = rows[0];
    if (row === undefined) return null;
    return { fence: Number(row.fence), tookOver: false, start, ordinal: Number(row.ordinal) };
  }

  /**
   * tx2 (world-internals §2.3): result object (when any), record object, record row, then the
   * outcome, as one statement in one explicit transaction (all four become durable together or
   * not at all). `beforeOutcome` (the `before-outcome` crash point) runs inside the transaction
   * just before it, so a crash there leaves nothing of tx2 durable: the intent stays
   * indeterminate.
   */
  async finish(
    episodeId: string,
    ordinal: number,
    objects: WorldObject[],
    record: RecordRow,
    status: 'succeeded' | 'failed',
    beforeOutcome: () => void,
  ): Promise<void> {
    const first = RECORD_PARAMS + 5;
    const sql =
      objects.length === 0
        ? `WITH r AS (${INSERT_RECORD_SQL}) ${INSERT_OUTCOME_SQL}`
        : `WITH o AS (${ObjectsRepository.insertSql(objects.length, first)}), r AS (${INSERT_RECORD_SQL}) ${INSERT_OUTCOME_SQL}`;
    const params = [
      ...recordParams(record),
      episodeId,
      ordinal,
      status,
      record.ref,
      ...ObjectsRepository.insertParams(objects),
    ];
    // An explicit transaction, not the statement's implicit one: a broker killed while its
    // statement waits on a lock must leave nothing durable. PostgreSQL would run and commit a
    // lone statement sent before the client died once the lock frees; inside BEGIN it runs but
    // the COMMIT never comes, so the intent stays indeterminate (world-internals §5 crash table).
    await this.database.transaction(async (query) => {
      beforeOutcome();
      await query(sql, params, `broker_tx2_${objects.length}`);
    });
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
          isNull(episodes.leaseHolder),
          isNull(episodes.leaseExpiresAt),
          lte(episodes.leaseExpiresAt, nowMs),
          lt(effectIntents.logicalTime, nowMs - longestCallMs),
          sql`EXISTS (SELECT 1 FROM broker.effect_intents later
                       WHERE later.episode_id = ${effectIntents.episodeId}
                         AND later.ordinal > ${effectIntents.ordinal})`,
        ),
      )!,
      true,
    );
  }

  /** The episode's spend per (effect, scope): Σ cost of its intents (`broker.spend`). */
  async spendOf(episodeId: string): Promise<SpendMap> {
    const { rows } = await this.database.query<{ effect: string; scope: string; spent: string }>(
      SPEND_SQL,
      [episodeId],
      'broker_spend_of_episode',
    );
    return new Map(rows.map((r) => [spendKey(r.effect, r.scope), Number(r.spent)]));
  }

  private async intentStates(where: SQL, withEpisode = false): Promise<IntentState[]> {
    const rows = await this.database.db
      .select({
        invocationId: effectIntents.invocationId,
        episodeId: effectIntents.episodeId,
        ordinal: effectIntents.ordinal,
        effect: effectIntents.effect,
        scope: effectIntents.scope,
        cost: effectIntents.cost,
        status: effectOutcomes.status,
        recordRef: effectOutcomes.recordRef,
      })
      .from(effectIntents)
      .leftJoin(
        effectOutcomes,
        and(
          eq(effectOutcomes.episodeId, effectIntents.episodeId),
          eq(effectOutcomes.ordinal, effectIntents.ordinal),
        ),
      )
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
export interface BeginResult {
  fence: number;
  tookOver: boolean;
  start: EffectStart;
  ordinal: number | null;
}

const SPEND_SQL = 'SELECT effect, scope, spent FROM broker.spend WHERE episode_id = $1::text';

/**
 * $1…$7 of tx1's allowed writes (INTENT_SQL, FREE_INTENT_SQL): episode, invocation, effect, scope,
 * cost, request ref, logical time.
 */
function intentParams(
  episodeId: string,
  intent: Extract<EffectStart, { kind: 'allowed' }>['intent'],
): unknown[] {
  return [
    episodeId,
    intent.invocationId,
    intent.effect,
    intent.scope,
    intent.cost,
    intent.requestRef,
    intent.logicalTime,
  ];
}

/** The number of parameters of INSERT_RECORD_SQL ($1…$13). */
const RECORD_PARAMS = 13;

const INSERT_RECORD_SQL = `INSERT INTO broker.effect_records (ref, episode_id, invocation_id,
    effect, scope, cost, budget_before, budget_after, allowed, failed, denial, request_ref,
    result_ref)
  VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::bigint, $7::bigint, $8::bigint,
    $9::boolean, $10::boolean, $11::text, $12::text, $13::text)
  ON CONFLICT DO NOTHING`;

function recordParams(row: RecordRow): unknown[] {
  const r = row.record;
  return [
    row.ref,
    row.episodeId,
    row.invocationId,
    r.effect,
    r.scope,
    r.cost,
    r.budgetBefore,
    r.budgetAfter,
    r.allowed,
    r.failed,
    r.denial,
    r.requestRef,
    r.resultRef,
  ];
}

/** tx2's outcome, after the record ($14…$17: episode, ordinal, status, record ref). */
const INSERT_OUTCOME_SQL = `INSERT INTO broker.effect_outcomes (episode_id, ordinal, status, record_ref)
  VALUES ($14::text, $15::bigint, $16::text, $17::text)`;

/**
 * tx1's allowed writes after the objects (CTE `o`): spend += cost ($1 episode, $3 effect,
 * $4 scope, $5 cost), then the intent with ordinal max+1 (or 0) of the episode's intents, read
 * inside the INSERT under the episode row lock ($2 invocation, $6 request ref, $7 logical time;
 * the objects' parameters follow from $8).
 */
const INTENT_SQL = intentSql(false);

/**
 * tx1's allowed writes after the objects: spend += cost, then the intent with ordinal max+1.
 * `gated`: each write only when the lease claim `took` returned its row (beginFree; HAVING drops
 * the aggregate's one row when the claim failed), answering the new fence with the ordinal.
 */
function intentSql(gated: boolean): string {
  return `s AS (
    INSERT INTO broker.spend (episode_id, effect, scope, spent)
    ${gated ? 'SELECT $1::text, $3::text, $4::text, $5::bigint FROM took' : 'VALUES ($1::text, $3::text, $4::text, $5::bigint)'}
    ON CONFLICT (episode_id, effect, scope) DO UPDATE SET spent = broker.spend.spent + EXCLUDED.spent
  )
  INSERT INTO broker.effect_intents (episode_id, ordinal, invocation_id, effect, scope, cost,
    request_ref, logical_time)
  SELECT $1::text, coalesce(max(i.ordinal) + 1, 0), $2::text, $3::text, $4::text, $5::bigint,
    $6::text, $7::bigint
  FROM broker.effect_intents i WHERE i.episode_id = $1::text
  ${gated ? 'HAVING EXISTS (SELECT 1 FROM took)\n  RETURNING ordinal, (SELECT lease_fence FROM took) AS fence' : 'RETURNING ordinal'}`;
}

/**
 * beginFree's lease claim ($1 episode, $8 holder, $9 the fence the lease was free at, $10
 * expiry): no row when the lease was taken or moved since the read.
 */
const FREE_CLAIM_SQL = `took AS (
    UPDATE broker.episodes
    SET lease_holder = $8::text, lease_fence = lease_fence + 1, lease_expires_at = $10::bigint
    WHERE id = $1::text AND lease_holder IS NULL AND lease_fence = $9::bigint
    RETURNING lease_fence
  )`;

/** beginFree's writes after the claim (`took`) and the objects (`o`), each gated on `took`. */
const FREE_INTENT_SQL = intentSql(true);
