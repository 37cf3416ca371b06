/** Spend of an episode: `spendKey(effect, scope)` → Σ cost of its intents. */
export type SpendMap = ReadonlyMap<string, number>;

/** The key of one (effect, scope) in a SpendMap. */
export function spendKey(effect: string, scope: string): string {
  return JSON.stringify([effect, scope]);
}
