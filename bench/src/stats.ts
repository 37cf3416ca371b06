/**
 * The numbers a scenario reports (issue 7): latency percentiles, calls per second, and World's
 * overhead over the baseline at the same percentile. Pure functions, no I/O.
 */

/** The percentiles every scenario reports, as fractions (issue 7: p50, p90, p99, then max). */
const PERCENTILES = { p50: 0.5, p90: 0.9, p99: 0.99 } as const;
/** The columns compared between World and the baseline. */
const COMPARED = ['p50', 'p90', 'p99', 'max'] as const;
type ComparedName = (typeof COMPARED)[number];

const MS_PER_S = 1000;

/** A run's latency distribution (milliseconds) and throughput. */
export interface Summary {
  /** calls measured (warm-up excluded) */
  calls: number;
  /** calls that failed (transport error, non-2xx, or a JSON-RPC error); not in the percentiles */
  errors: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
  /** completed calls / wall time of the measured window */
  callsPerSec: number;
  /** wall time of the measured window, ms */
  wallMs: number;
}

/**
 * Nearest-rank percentile of an ascending array: the smallest value with at least `q` of the
 * values at or below it (q in (0, 1]).
 * @throws RangeError for an empty array or q outside (0, 1]
 */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) throw new RangeError('percentile of no values');
  if (!(q > 0 && q <= 1)) throw new RangeError(`percentile fraction must be in (0, 1], got ${q}`);
  const rank = Math.ceil(q * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/**
 * Summarizes a run: percentiles over the successful calls' latencies, calls/s over the window.
 * @param latenciesMs one latency per successful call, milliseconds, any order
 * @param wallMs the measured window, milliseconds (> 0)
 * @param errors failed calls in the window
 * @throws RangeError when no call succeeded or wallMs is not positive
 */
export function summarize(latenciesMs: readonly number[], wallMs: number, errors = 0): Summary {
  if (!(wallMs > 0)) throw new RangeError(`wall time must be positive, got ${wallMs}`);
  const sorted = [...latenciesMs].sort((a, b) => a - b);
  const sum = sorted.reduce((a, b) => a + b, 0);
  return {
    calls: sorted.length,
    errors,
    p50: percentile(sorted, PERCENTILES.p50),
    p90: percentile(sorted, PERCENTILES.p90),
    p99: percentile(sorted, PERCENTILES.p99),
    max: sorted[sorted.length - 1]!,
    mean: sum / sorted.length,
    callsPerSec: (sorted.length * MS_PER_S) / wallMs,
    wallMs,
  };
}

/** World minus baseline, and World over baseline, at one percentile. */
interface Overhead {
  diffMs: number;
  ratio: number;
}

/** World's overhead over the baseline at each compared percentile, plus the throughput ratio. */
export interface Comparison {
  latency: Record<ComparedName, Overhead>;
  /** World's calls/s over the baseline's */
  throughputRatio: number;
}

/** World's overhead over the baseline for the same percentile (issue 7). */
export function compare(world: Summary, baseline: Summary): Comparison {
  const latency = {} as Record<ComparedName, Overhead>;
  for (const name of COMPARED) {
    latency[name] = { diffMs: world[name] - baseline[name], ratio: world[name] / baseline[name] };
  }
  return { latency, throughputRatio: world.callsPerSec / baseline.callsPerSec };
}

/** How far `value` is above `reference`, as a fraction (0.1 = 10 % slower). */
export function relativeChange(value: number, reference: number): number {
  return (value - reference) / reference;
}
