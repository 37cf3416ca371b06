import type { PhaseHistogram } from '@world/contracts';
import { boundText, mergeHistograms, percentileBound, phaseLatencies } from './latency.js';

/** A histogram over bounds 0.001, 0.01, 0.1, +Inf with these cumulative counts. */
const hist = (
  phase: string,
  counts: [number, number, number, number],
  sum = 0,
): PhaseHistogram => ({
  phase,
  buckets: [
    { le: 0.001, count: counts[0] },
    { le: 0.01, count: counts[1] },
    { le: 0.1, count: counts[2] },
    { le: null, count: counts[3] },
  ],
  count: counts[3],
  sumSeconds: sum,
});

describe('mergeHistograms (cumulative buckets summed bound by bound)', () => {
  it('adds counts, totals and sums of every replica', () => {
    expect(
      mergeHistograms([hist('plan', [1, 3, 4, 4], 0.02), hist('plan', [0, 2, 5, 6], 0.3)]),
    ).toEqual({
      phase: 'plan',
      buckets: [
        { le: 0.001, count: 1 },
        { le: 0.01, count: 5 },
        { le: 0.1, count: 9 },
        { le: null, count: 10 },
      ],
      count: 10,
      sumSeconds: 0.32,
      replicas: 2,
    });
  });

  it('refuses histograms whose bounds differ, naming both', () => {
    const other: PhaseHistogram = {
      phase: 'plan',
      buckets: [
        { le: 0.005, count: 1 },
        { le: null, count: 1 },
      ],
      count: 1,
      sumSeconds: 0.004,
    };
    expect(() => mergeHistograms([hist('plan', [1, 1, 1, 1]), other])).toThrow(
      new Error('bucket bounds differ between replicas (0.001,0.01,0.1,+Inf and 0.005,+Inf)'),
    );
  });
});

describe('percentileBound (nearest rank, read as the bucket upper bound)', () => {
  // 10 observations: 1 ≤ 1 ms, 4 more ≤ 10 ms, 4 more ≤ 100 ms, 1 above
  const h = hist('commit', [1, 5, 9, 10]);

  it.each([
    [0.1, 0.001], // rank 1
    [0.11, 0.01], // rank 2
    [0.5, 0.01], // rank 5
    [0.51, 0.1], // rank 6
    [0.9, 0.1], // rank 9
    [0.99, null], // rank 10: the +Inf bucket
    [1, null],
  ])('q = %s → %s', (q, bound) => {
    expect(percentileBound(h, q)).toBe(bound);
  });

  it('is undefined without observations and refuses a quantile outside (0, 1]', () => {
    expect(percentileBound(hist('plan', [0, 0, 0, 0]), 0.5)).toBeUndefined();
    expect(() => percentileBound(h, 0)).toThrow(new RangeError('quantile 0 is not in (0, 1]'));
    expect(() => percentileBound(h, 1.5)).toThrow(new RangeError('quantile 1.5 is not in (0, 1]'));
  });
});

describe('phaseLatencies (per phase over the replicas that answered)', () => {
  it('merges each phase across replicas, in call order, and reads p50, p90, p99', () => {
    const plannerA = [hist('commit', [0, 2, 2, 2]), hist('plan', [3, 3, 3, 3])];
    const plannerB = [hist('plan', [1, 1, 1, 1]), hist('finish', [0, 0, 1, 1])];
    const broker = [hist('execute', [0, 50, 99, 100]), hist('lease', [7, 7, 7, 7])];
    expect(phaseLatencies([plannerA, [], plannerB, broker])).toEqual([
      {
        phase: 'plan',
        count: 4,
        replicas: 2,
        bounds: [0.001, 0.001, 0.001],
        lastBound: 0.1,
        problem: null,
      },
      {
        phase: 'lease',
        count: 7,
        replicas: 1,
        bounds: [0.001, 0.001, 0.001],
        lastBound: 0.1,
        problem: null,
      },
      {
        phase: 'execute',
        count: 100,
        replicas: 1,
        bounds: [0.01, 0.1, 0.1],
        lastBound: 0.1,
        problem: null,
      },
      {
        phase: 'finish',
        count: 1,
        replicas: 1,
        bounds: [0.1, 0.1, 0.1],
        lastBound: 0.1,
        problem: null,
      },
      {
        phase: 'commit',
        count: 2,
        replicas: 1,
        bounds: [0.01, 0.01, 0.01],
        lastBound: 0.1,
        problem: null,
      },
    ]);
  });

  it('states a phase it cannot merge instead of showing numbers', () => {
    const odd: PhaseHistogram = {
      phase: 'plan',
      buckets: [{ le: null, count: 2 }],
      count: 2,
      sumSeconds: 1,
    };
    expect(phaseLatencies([[hist('plan', [1, 1, 1, 1])], [odd]])).toEqual([
      {
        phase: 'plan',
        count: 0,
        replicas: 2,
        bounds: undefined,
        lastBound: 0,
        problem: 'bucket bounds differ between replicas (0.001,0.01,0.1,+Inf and +Inf)',
      },
    ]);
  });
});

describe('boundText', () => {
  it.each([
    [0.001, '≤ 1 ms'],
    [0.0025, '≤ 2.5 ms'],
    [0.25, '≤ 250 ms'],
    [1, '≤ 1 s'],
    [2.5, '≤ 2.5 s'],
    [null, '> 30 s'],
  ])('%s → %s', (le, text) => {
    expect(boundText(le, 30)).toBe(text);
  });
});
