import type { WorldObject } from '@world/canonical';
import type { DenialLabel, SessionGrant } from '@world/contracts';
import { decide, type EffectAsk } from './decide.js';
import { effectRecord, effectRecordObject } from './effect-objects.js';
import type { AllowedStart, DeniedStart } from './effect-start.js';
import { spendKey, type SpendMap } from './spend-key.js';

/**
 * What the authorize step decided, as tx1 writes it: a denial (its request and record objects
 * and record row, nothing spent) or an allowed start (the request object and the intent), each
 * with the budget before the spend (the record's budgetBefore: tx1's for a denial, tx2's for an
 * allowed effect) and, for a denial, its label.
 */
export type Authorization =
  | (DeniedStart & { budgetBefore: number; denial: DenialLabel })
  | (AllowedStart & { budgetBefore: number });

/** What one execute asks the authorize step, besides the spend it is seeded with. */
export interface AuthorizeInput {
  episodeId: string;
  invocationId: string;
  /** the session's grants in mint order */
  grants: readonly SessionGrant[];
  /** the effect, scope and cost asked for at the caller's logical time */
  ask: EffectAsk;
  /** the call's `world/effect-request/v1` object (effectRequestObject) */
  requestObject: WorldObject;
}

/**
 * The authorize step of `broker.effect.execute` (world-internals §5.1–§5.2, world-spec
 * §2.7–§2.8): seeds each grant with what is left of its budget after the episode's spend
 * (budget − spent, floored at 0), lets `decide` judge the ask, and returns what tx1 writes — a
 * denial with its three-arm record (`denied`, budget unchanged) or an allowed start with its
 * intent. Every tx1 way runs it on the spend it read: the free path on the execute path's read,
 * the locking ones on the spend read under the episode row lock. Pure: no clock, no I/O.
 * @param spent the episode's spend per (effect, scope) (`spendKey`)
 */
export function authorize(input: AuthorizeInput, spent: SpendMap): Authorization {
  const { episodeId, invocationId, ask, requestObject } = input;
  const views = input.grants.map((g) => ({
    effect: g.effect,
    scope: g.scope,
    expiresAt: g.expiresAt,
    remaining: Math.max(0, g.budget - (spent.get(spendKey(g.effect, g.scope)) ?? 0)),
  }));
  const decision = decide(views, ask);
  const budgetBefore = decision.remaining;
  const { effect, scope, cost } = ask;
  if (!decision.allowed) {
    const record = effectRecord({ effect, scope, cost }, requestObject.hash, {
      arm: 'denied',
      budgetBefore,
      denial: decision.label,
    });
    const recordObject = effectRecordObject(record);
    return {
      kind: 'denied',
      objects: [requestObject, recordObject],
      record: { ref: recordObject.hash, episodeId, invocationId, record },
      budgetBefore,
      denial: decision.label,
    };
  }
  return {
    kind: 'allowed',
    objects: [requestObject],
    intent: {
      invocationId,
      effect,
      scope,
      cost,
      requestRef: requestObject.hash,
      logicalTime: ask.now,
    },
    budgetBefore,
  };
}
