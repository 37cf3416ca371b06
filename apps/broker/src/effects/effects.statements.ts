/**
 * The statements of the effect journal (tx1 and tx2, world-internals §5.2 and §2.3) and their
 * parameters by name, composed from the lease claim and objects fragments of their own
 * repositories. Only EffectsRepository runs them.
 */
import { statement, statementsByCount, type Bind } from '../db/statement.js';
import {
  EpisodesRepository,
  FREE_CLAIM,
  type FreeClaimKey,
} from '../episodes/episodes.repository.js';
import { ObjectsRepository, type ObjectValues } from '../objects/objects.repository.js';
import type { AllowedStart, RecordRow } from './effect-start.js';

export const SPEND = statement<{ episodeId: string }>(
  'broker_spend_of_episode',
  (p) =>
    `SELECT effect, scope, spent FROM broker.spend WHERE episode_id = ${p('episodeId', 'text')}`,
);

/** The parameters of an intent (INTENT_SQL): the episode and the allowed start's fields. */
export type IntentValues = ReturnType<typeof intentValues>;

export function intentValues(episodeId: string, intent: AllowedStart['intent']) {
  return {
    episodeId,
    invocationId: intent.invocationId,
    effect: intent.effect,
    scope: intent.scope,
    cost: intent.cost,
    requestRef: intent.requestRef,
    logicalTime: intent.logicalTime,
  };
}

/** The parameters of a record row (recordSql), by name. */
export type RecordValues = ReturnType<typeof recordValues>;

export function recordValues(row: RecordRow) {
  const r = row.record;
  return {
    ref: row.ref,
    episodeId: row.episodeId,
    invocationId: row.invocationId,
    effect: r.effect,
    scope: r.scope,
    cost: r.cost,
    budgetBefore: r.budgetBefore,
    budgetAfter: r.budgetAfter,
    allowed: r.allowed,
    failed: r.failed,
    denial: r.denial,
    requestRef: r.requestRef,
    resultRef: r.resultRef,
  };
}

/** The INSERT of one effect record row (a record already stored is kept: same ref, same row). */
function recordSql(p: Bind<keyof RecordValues>): string {
  return `INSERT INTO broker.effect_records (ref, episode_id, invocation_id,
    effect, scope, cost, budget_before, budget_after, allowed, failed, denial, request_ref,
    result_ref)
  VALUES (${p('ref', 'text')}, ${p('episodeId', 'text')}, ${p('invocationId', 'text')}, ${p('effect', 'text')}, ${p('scope', 'text')}, ${p('cost', 'bigint')}, ${p('budgetBefore', 'bigint')}, ${p('budgetAfter', 'bigint')},
    ${p('allowed', 'boolean')}, ${p('failed', 'boolean')}, ${p('denial', 'text')}, ${p('requestRef', 'text')}, ${p('resultRef', 'text')})
  ON CONFLICT DO NOTHING`;
}

/**
 * tx1's allowed writes after the objects (CTE `o`): spend += cost, then the intent with ordinal
 * max+1 (or 0) of the episode's intents, read inside the INSERT under the episode row lock.
 * `gated`: each write only when the free claim took the lease (beginFree; HAVING drops the
 * aggregate's one row when the claim failed), answering the new fence with the ordinal.
 */
function intentSql(p: Bind<keyof IntentValues>, gated: boolean): string {
  const spend = `${p('episodeId', 'text')}, ${p('effect', 'text')}, ${p('scope', 'text')}, ${p('cost', 'bigint')}`;
  return `s AS (
    INSERT INTO broker.spend (episode_id, effect, scope, spent)
    ${gated ? `SELECT ${spend} FROM ${FREE_CLAIM.rows}` : `VALUES (${spend})`}
    ON CONFLICT (episode_id, effect, scope) DO UPDATE SET spent = broker.spend.spent + EXCLUDED.spent
  )
  INSERT INTO broker.effect_intents (episode_id, ordinal, invocation_id, effect, scope, cost,
    request_ref, logical_time)
  SELECT ${p('episodeId', 'text')}, coalesce(max(i.ordinal) + 1, 0), ${p('invocationId', 'text')}, ${p('effect', 'text')}, ${p('scope', 'text')}, ${p('cost', 'bigint')},
    ${p('requestRef', 'text')}, ${p('logicalTime', 'bigint')}
  FROM broker.effect_intents i WHERE i.episode_id = ${p('episodeId', 'text')}
  ${gated ? `HAVING ${FREE_CLAIM.taken}\n  RETURNING ordinal, ${FREE_CLAIM.fence} AS fence` : 'RETURNING ordinal'}`;
}

/** tx1 of a denial: its objects, then the record row. */
export const DENIED_START = statementsByCount((n) =>
  statement<RecordValues & ObjectValues>(
    `broker_tx1_denied_${n}`,
    (p) => `WITH o AS (${ObjectsRepository.insertSql(p, n)}) ${recordSql(p)}`,
  ),
);

/** tx1 of an allowed start under a held lease: the request object, spend, intent. */
export const ALLOWED_START = statementsByCount((n) =>
  statement<IntentValues & ObjectValues>(
    `broker_tx1_allowed_${n}`,
    (p) => `WITH o AS (${ObjectsRepository.insertSql(p, n)}), ${intentSql(p, false)}`,
  ),
);

/**
 * beginFree: the free claim (EpisodesRepository.freeClaimCte), then the objects, spend and
 * intent, each gated on it.
 */
export const FREE_START = statementsByCount((n) =>
  statement<IntentValues & Record<FreeClaimKey, unknown> & ObjectValues>(
    `broker_tx1_free_${n}`,
    (p) =>
      `WITH ${EpisodesRepository.freeClaimCte(p)}, o AS (${ObjectsRepository.insertSql(p, n, FREE_CLAIM.taken)}), ${intentSql(p, true)}`,
  ),
);

/**
 * tx2: the objects when any, the record row, then the outcome (its record ref is the record's).
 */
export const FINISH = statementsByCount((n) =>
  statement<RecordValues & ObjectValues & { ordinal: number; status: string }>(
    `broker_tx2_${n}`,
    (p) => {
      const objects = n === 0 ? '' : `o AS (${ObjectsRepository.insertSql(p, n)}), `;
      const record = recordSql(p);
      return `WITH ${objects}r AS (${record}) INSERT INTO broker.effect_outcomes (episode_id, ordinal, status, record_ref)
  VALUES (${p('episodeId', 'text')}, ${p('ordinal', 'bigint')}, ${p('status', 'text')}, ${p('ref', 'text')})`;
    },
  ),
);
