import { DENIAL_LABELS, type DenialLabel } from '@world/contracts';

/** A grant as the decision sees it: its remaining budget already seeded from the spend counter. */
export interface GrantView {
  effect: string;
  scope: string;
  /** epoch ms; the grant is live while 0 ≤ now < expiresAt */
  expiresAt: number;
  /** budget − spent(episode, effect, scope), floored at 0, in cost units */
  remaining: number;
}

/** What an effect asks for: name, exact scope, cost, and the caller's logical time (epoch ms). */
export interface EffectAsk {
  effect: string;
  scope: string;
  cost: number;
  now: number;
}

/** The broker's decision: the remaining budget before the spend, and on denial its label. */
export type Decision =
  | { allowed: true; grantIndex: number; remaining: number }
  | { allowed: false; label: DenialLabel; remaining: number };

/**
 * The grant decision law (world-internals §5.1, frozen order; world-spec §2.7–§2.8). For one
 * grant: effect name equal, else `denied:effect-name`; scope exactly equal (no globs), else
 * `denied:scope`; live (0 ≤ now < expiresAt), else `denied:expired`; 0 ≤ cost ≤ remaining,
 * else `denied:budget`. Over the list the first fully allowed grant wins; otherwise the denial
 * of the grant that got furthest in that order (the first such grant on a tie). No grants →
 * `denied:effect-name`.
 * `remaining` is the budget before this effect: the winning grant's, or on denial the furthest
 * grant's when it matched name and scope (expired, budget), else 0.
 * Pure: no clock, no I/O.
 */
export function decide(grants: readonly GrantView[], ask: EffectAsk): Decision {
  let furthest = -1;
  let furthestRemaining = 0;
  for (let i = 0; i < grants.length; i++) {
    const grant = grants[i]!;
    const rank = failedCheck(grant, ask);
    if (rank === PASSED) return { allowed: true, grantIndex: i, remaining: grant.remaining };
    if (rank > furthest) {
      furthest = rank;
      furthestRemaining = rank >= EXPIRED ? grant.remaining : 0;
    }
  }
  if (furthest < 0) return { allowed: false, label: DENIAL_LABELS[EFFECT_NAME]!, remaining: 0 };
  return { allowed: false, label: DENIAL_LABELS[furthest]!, remaining: furthestRemaining };
}

// Ranks are indexes into DENIAL_LABELS, which lists the labels in precedence order.
const EFFECT_NAME = 0;
const SCOPE = 1;
const EXPIRED = 2;
const BUDGET = 3;
const PASSED = DENIAL_LABELS.length;

function failedCheck(grant: GrantView, ask: EffectAsk): number {
  if (grant.effect !== ask.effect) return EFFECT_NAME;
  if (grant.scope !== ask.scope) return SCOPE;
  if (!(ask.now >= 0 && ask.now < grant.expiresAt)) return EXPIRED;
  if (!(ask.cost >= 0 && grant.remaining >= 0 && ask.cost <= grant.remaining)) return BUDGET;
  return PASSED;
}
