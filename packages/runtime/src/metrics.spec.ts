import { CALL_DEADLINE_MS, LATENCY_BUCKETS_SECONDS } from '@world/contracts';
import { elapsedSeconds, startMark, worldMetrics } from './metrics.js';

// The metric names are the contract between World and its operators: dashboards and alerts are
// written against them (packages/runtime/README.md "Health, readiness, metrics").
describe('World metrics', () => {
  it('derives the latency buckets up to the whole invocation deadline (limits.ts)', () => {
    expect(LATENCY_BUCKETS_SECONDS[LATENCY_BUCKETS_SECONDS.length - 1]).toBe(
      CALL_DEADLINE_MS / 1000,
    );
    expect([...LATENCY_BUCKETS_SECONDS].sort((a, b) => a - b)).toEqual([
      ...LATENCY_BUCKETS_SECONDS,
    ]);
  });

  it.each([
    ['world_calls_total', 'counter', ['replica', 'tool', 'surface', 'outcome']],
    ['world_phase_seconds', 'histogram', ['replica', 'phase']],
    ['world_budget_denials_total', 'counter', ['replica', 'effect']],
    ['world_lease_waits_total', 'counter', ['replica']],
    ['world_lease_wait_seconds', 'histogram', ['replica']],
    ['world_lease_takeovers_total', 'counter', ['replica']],
    ['world_effects_total', 'counter', ['replica', 'effect', 'status']],
    ['world_ledger_head_index', 'gauge', ['replica']],
    ['world_http_requests_total', 'counter', ['replica', 'route', 'status']],
  ])('registers %s as a %s labelled %j', async (name, type, labels) => {
    const metric = worldMetrics().registry.getSingleMetric(name);
    expect(metric).toBeDefined();
    const json = await metric!.get();
    expect(json.type).toBe(type);
    expect((metric as unknown as { labelNames: string[] }).labelNames).toEqual(labels);
  });

  it('is one registry per process', () => {
    expect(worldMetrics()).toBe(worldMetrics());
  });

  it('measures elapsed time in seconds from nanosecond marks of one monotonic clock', () => {
    const ticks = [1_000n, 2_500_001_000n];
    const clock = () => ticks.shift()!;
    const mark = startMark(clock);
    expect(mark).toBe(1_000n);
    expect(elapsedSeconds(mark, clock)).toBe(2.5);
  });
});
