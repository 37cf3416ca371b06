import type { EffectTriple, SessionGrant } from '@world/contracts';

/**
 * Admission ("Bind"): a tool is visible and callable when some live grant holds its `access`
 * triple — effect name equal, scope exactly equal, `now < expiresAt`, and access cost ≤ the grant's
 * budget. Access cost is 0 for every tool, so a budget-0 grant still admits its tool; the broker
 * decides spend at execution (world-spec §2.7, §11 scenario 10).
 * @param access the descriptor's access triple
 * @param grants the session's grants (expiresAt in epoch ms)
 * @param now epoch ms
 */
export function admits(
  access: EffectTriple,
  grants: readonly SessionGrant[],
  now: number,
): boolean {
  return grants.some(
    (g) =>
      g.effect === access.effect &&
      g.scope === access.scope &&
      now >= 0 &&
      now < g.expiresAt &&
      access.cost <= g.budget,
  );
}
