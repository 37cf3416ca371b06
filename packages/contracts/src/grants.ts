import { DENIAL_LABELS, type DenialLabel } from './schemas.js';

/** What one grant offers at a decision: its effect, exact scope, expiry and budget left. */
export interface GrantOffer {
  effect: string;
  scope: string;
  /** epoch ms; the grant is live while 0 ≤ now < expiresAt */
  expiresAt: number;
  /** cost units this grant can still pay (the broker: budget − spent; admission: the budget) */
  remaining: number;
}

/** What a call asks of a grant: effect name, exact scope, cost (units) at `now` (epoch ms). */
export interface GrantAsk {
  effect: string;
  scope: string;
  cost: number;
  now: number;
}

/**
 * The grant law for one grant (world-internals §5.1, frozen order; world-spec §2.7–§2.8): effect
 * name equal, else `denied:effect-name`; scope exactly equal (no globs), else `denied:scope`;
 * live (0 ≤ now < expiresAt), else `denied:expired`; 0 ≤ cost ≤ remaining, else
 * `denied:budget`. Both the broker's decision (`decide`, with the budget left after spend) and
 * the planner's admission (`admits`, with the grant's budget and the access cost) ask it. Pure.
 * @returns the first check the grant fails, or null when it pays for the ask
 */
export function grantDenial(grant: GrantOffer, ask: GrantAsk): DenialLabel | null {
  if (grant.effect !== ask.effect) return DENIAL_LABELS[0];
  if (grant.scope !== ask.scope) return DENIAL_LABELS[1];
  if (!(ask.now >= 0 && ask.now < grant.expiresAt)) return DENIAL_LABELS[2];
  if (!(ask.cost >= 0 && grant.remaining >= 0 && ask.cost <= grant.remaining))
    return DENIAL_LABELS[3];
  return null;
}

/** A session's state at one instant (world-spec §2.2). */
export type SessionStatus = 'live' | 'revoked' | 'expired';

/**
 * A stored session's state at `now` (world-spec §2.2): revoked from its revocation on (a revoked
 * session stays revoked after it would have expired), else expired once now ≥ expiresAt, else
 * live. The broker's resolution, its session list and its execute path, and the gateway's cached
 * resolutions all read it. Pure.
 * @param session expiresAt (epoch ms) and, where it is known, revokedAt (epoch ms or null)
 * @param now epoch ms
 */
export function sessionStatus(
  session: { expiresAt: number; revokedAt?: number | null },
  now: number,
): SessionStatus {
  if (session.revokedAt !== undefined && session.revokedAt !== null) return 'revoked';
  return now >= session.expiresAt ? 'expired' : 'live';
}
