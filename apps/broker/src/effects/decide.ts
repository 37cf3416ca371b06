import {
  DENIAL_LABELS,
  grantDenial,
  type DenialLabel,
  type GrantAsk,
  type GrantOffer,
} from '@world/contracts';

/**
 * A grant as the decision sees it: its remaining budget already seeded from the spend counter
 * (budget − spent(episode, effect, scope), floored at 0, in cost units).
 */
export type GrantView = GrantOffer;

/** What an effect asks for: name, exact scope, cost, and the caller's logical time (epoch ms). */
export type EffectAsk = GrantAsk;

/** The broker's decision: the remaining budget before the spend, and on denial its label. */
export type Decision =
  | { allowed: true; grantIndex: number; remaining: number }
  | { allowed: false; label: DenialLabel; remaining: number };

/**
 * The grant decision over a session's grants (world-internals §5.1, frozen order; world-spec
 * §2.7–§2.8). Each grant is judged by the one grant law, contracts `grantDenial` (effect name,
 * exact scope, live, 0 ≤ cost ≤ remaining). Over the list the first fully allowed grant wins;
 * otherwise the denial of the grant that got furthest in that order (the first such grant on a
 * tie). No grants → `denied:effect-name`.
 * `remaining` is the budget before this effect: the winning grant's, or on denial the furthest
 * grant's when it matched name and scope (expired, budget), else 0.
 * Pure: no clock, no I/O.
 */
export function decide(grants: readonly GrantView[], ask: EffectAsk): Decision {
  let furthest = -1;
  let furthestRemaining = 0;
  for (let i = 0; i < grants.length; i++) {
    const grant = grants[i]!;
    const denial = grantDenial(grant, ask);
    if (denial === null) return { allowed: true, grantIndex: i, remaining: grant.remaining };
    const rank = DENIAL_LABELS.indexOf(denial);
    if (rank > furthest) {
      furthest = rank;
      furthestRemaining = rank >= EXPIRED ? grant.remaining : 0;
    }
  }
  if (furthest < 0) return { allowed: false, label: DENIAL_LABELS[0], remaining: 0 };
  return { allowed: false, label: DENIAL_LABELS[furthest]!, remaining: furthestRemaining };
}

/** A grant that got as far as expiry matched name and scope: its remaining budget is reported. */
const EXPIRED = DENIAL_LABELS.indexOf('denied:expired');
