import { grantDenial, type EffectTriple, type SessionGrant } from '@world/contracts';

/**
 * Admission ("Bind"): a tool is visible and callable when some grant holds its `access` triple
 * by the one grant law, contracts `grantDenial` — effect name equal, scope exactly equal, live
 * (0 ≤ now < expiresAt), and access cost ≤ the grant's budget. Access cost is 0 for every tool, so a budget-0 grant still admits its tool; the broker
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
    (g) => grantDenial({ ...g, remaining: g.budget }, { ...access, now }) === null,
  );
}
