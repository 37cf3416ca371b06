/**
 * Latency percentiles per phase from Prometheus histogram buckets, merged across replicas: the
 * replicas' cumulative bucket counts are summed bound by bound (a histogram's buckets add across
 * instances, as PromQL's `sum by (le)` does), then each percentile is read from the merged
 * buckets as the upper bound of the first bucket holding its rank. A value is therefore a bucket
 * upper bound ("≤ 25 ms"), never an interpolation; `null` is the `+Inf` bucket.
 */
import type { PhaseHistogram } from '@world/contracts';

/** The phases of a call in the order a call runs them (metrics.ts Phase); others follow by name. */
const PHASE_ORDER = ['plan', 'lease', 'execute', 'finish', 'commit'];

/**
 * One phase's histogram summed over the replicas that timed it.
 * @internal exported for latency.spec.ts (mergeHistograms' result)
 */
export interface MergedPhase extends PhaseHistogram {
  /** how many replicas' histograms were summed */
  replicas: number;
}

/** The percentiles the Overview shows, as fractions. */
const PERCENTILES = [0.5, 0.9, 0.99] as const;

/** A phase's row: its count and each percentile's bucket upper bound (seconds; null = +Inf). */
export interface PhaseLatency {
  phase: string;
  count: number;
  replicas: number;
  /** PERCENTILES in order; undefined when nothing was counted */
  bounds: Array<number | null> | undefined;
  /** the largest finite bucket bound (seconds): a null percentile lies above it */
  lastBound: number;
  /** why this phase could not be merged (bucket bounds differ between replicas), else null */
  problem: string | null;
}

const boundsText = (h: PhaseHistogram) => h.buckets.map((b) => b.le ?? '+Inf').join(',');

/**
 * Sums histograms of one phase bucket by bucket.
 * @param histograms the phase's histogram from each replica (at least one)
 * @throws Error `bucket bounds differ between replicas (…)` when two histograms' bounds differ:
 *   cumulative counts at different bounds cannot be added
 * @internal exported for latency.spec.ts
 */
export function mergeHistograms(histograms: PhaseHistogram[]): MergedPhase {
  const [first, ...rest] = histograms;
  if (first === undefined) throw new Error('no histogram to merge');
  const buckets = first.buckets.map((b) => ({ ...b }));
  let count = first.count;
  let sumSeconds = first.sumSeconds;
  for (const h of rest) {
    if (boundsText(h) !== boundsText(first))
      throw new Error(
        `bucket bounds differ between replicas (${boundsText(first)} and ${boundsText(h)})`,
      );
    h.buckets.forEach((b, i) => (buckets[i]!.count += b.count));
    count += h.count;
    sumSeconds += h.sumSeconds;
  }
  return { phase: first.phase, buckets, count, sumSeconds, replicas: histograms.length };
}

/**
 * The upper bound of the bucket holding the q-quantile's rank (nearest rank: the ⌈q·count⌉-th
 * smallest observation, at least the first), read from cumulative buckets.
 * @param q a fraction in (0, 1]
 * @returns seconds; null when the rank lies in the `+Inf` bucket; undefined when count is 0
 * @throws RangeError when q is not in (0, 1]
 * @internal exported for latency.spec.ts
 */
export function percentileBound(
  h: Pick<PhaseHistogram, 'buckets' | 'count'>,
  q: number,
): number | null | undefined {
  if (!(q > 0 && q <= 1)) throw new RangeError(`quantile ${q} is not in (0, 1]`);
  if (h.count === 0) return undefined;
  const rank = Math.max(1, Math.ceil(q * h.count));
  for (const b of h.buckets) if (b.count >= rank) return b.le;
  return null;
}

/**
 * Per phase, the replicas' histograms merged and read at PERCENTILES, phases in call order.
 * @param replicas each replica's phase histograms (a replica that timed nothing has none)
 */
export function phaseLatencies(replicas: PhaseHistogram[][]): PhaseLatency[] {
  const byPhase = new Map<string, PhaseHistogram[]>();
  for (const phases of replicas)
    for (const h of phases) byPhase.set(h.phase, [...(byPhase.get(h.phase) ?? []), h]);
  const rank = (p: string) => {
    const i = PHASE_ORDER.indexOf(p);
    return i === -1 ? PHASE_ORDER.length : i;
  };
  const names = [...byPhase.keys()].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1));
  return names.map((phase) => {
    const histograms = byPhase.get(phase)!;
    try {
      const merged = mergeHistograms(histograms);
      const bounds =
        merged.count === 0
          ? undefined
          : PERCENTILES.map((q) => percentileBound(merged, q) as number | null);
      const finite = merged.buckets.map((b) => b.le).filter((le): le is number => le !== null);
      const lastBound = finite.length === 0 ? 0 : finite[finite.length - 1]!;
      return {
        phase,
        count: merged.count,
        replicas: merged.replicas,
        bounds,
        lastBound,
        problem: null,
      };
    } catch (err) {
      const problem = err instanceof Error ? err.message : String(err);
      const replicas = histograms.length;
      return { phase, count: 0, replicas, bounds: undefined, lastBound: 0, problem };
    }
  });
}

/** A bound as the page prints it: `≤ 2.5 ms`, `≤ 1 s`, `> 30 s` for +Inf after `last`. */
export function boundText(le: number | null, last: number): string {
  if (le === null) return `> ${secondsText(last)}`;
  return `≤ ${secondsText(le)}`;
}

function secondsText(s: number): string {
  return s < 1 ? `${+(s * 1000).toFixed(3)} ms` : `${+s.toFixed(3)} s`;
}
