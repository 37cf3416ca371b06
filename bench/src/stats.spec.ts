import { compare, percentile, relativeChange, summarize } from './stats.js';

describe('percentile (nearest rank, issue 7 p50/p90/p99)', () => {
  const ten = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  it.each([
    [ten, 0.5, 5],
    [ten, 0.9, 9],
    [ten, 0.99, 10],
    [ten, 1, 10],
    [ten, 0.01, 1],
    [[7], 0.5, 7],
    [[1, 2], 0.5, 1],
    [[1, 2, 3], 0.5, 2],
  ])('of %j at %d is %d', (values, q, expected) => {
    expect(percentile(values, q)).toBe(expected);
  });

  it.each([
    [[], 0.5, 'percentile of no values'],
    [[1], 0, 'percentile fraction must be in (0, 1], got 0'],
    [[1], 1.5, 'percentile fraction must be in (0, 1], got 1.5'],
  ])('refuses %j at %d', (values, q, message) => {
    expect(() => percentile(values, q)).toThrow(new RangeError(message));
  });
});

describe('summarize', () => {
  it('sorts, takes the percentiles and divides the calls by the window', () => {
    const latencies = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(summarize(latencies, 2000, 3)).toEqual({
      calls: 100,
      errors: 3,
      p50: 50,
      p90: 90,
      p99: 99,
      max: 100,
      mean: 50.5,
      callsPerSec: 50,
      wallMs: 2000,
    });
  });

  it('refuses an empty window', () => {
    expect(() => summarize([1], 0)).toThrow(new RangeError('wall time must be positive, got 0'));
  });
});

describe('compare (World over the baseline, same percentile)', () => {
  it('gives the difference and the ratio of each percentile and the throughput ratio', () => {
    const base = summarize([1, 1, 1, 2], 4);
    const world = summarize([3, 3, 4, 6], 12);
    expect(compare(world, base)).toEqual({
      latency: {
        p50: { diffMs: 2, ratio: 3 },
        p90: { diffMs: 4, ratio: 3 },
        p99: { diffMs: 4, ratio: 3 },
        max: { diffMs: 4, ratio: 3 },
      },
      throughputRatio: 1 / 3,
    });
  });
});

describe('relativeChange', () => {
  it.each([
    [11, 10, 0.1],
    [9, 10, -0.1],
    [10, 10, 0],
  ])('of %d against %d is %d', (value, reference, expected) => {
    expect(relativeChange(value, reference)).toBeCloseTo(expected, 12);
  });
});
