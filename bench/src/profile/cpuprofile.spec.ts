import { areaOf, summarizeProfile, type CpuProfile } from './cpuprofile.js';

describe('areaOf (which code a sample belongs to)', () => {
  it.each([
    ['(garbage collector)', '', '(gc)'],
    ['(program)', '', '(program)'],
    ['writev', '', '(native)'],
    [
      'commitInvocation',
      'file:///work/main/apps/ledger/dist/commit/commit-invocation.js',
      'world:ledger',
    ],
    ['canonicalJson', 'file:///work/main/packages/canonical/dist/jcs.js', 'world:canonical'],
    ['invoke', 'file:///work/wt/t19/bench/dist/floor/planner.js', 'bench:floor'],
    [
      'parse',
      'file:///work/main/node_modules/.pnpm/zod@4.6.7/node_modules/zod/v4/core/parse.js',
      'zod',
    ],
    [
      'x',
      'file:///work/main/node_modules/.pnpm/@nestjs+core@12.5.1/node_modules/@nestjs/core/router.js',
      '@nestjs/core',
    ],
    ['y', 'file:///work/main/apps/gateway/node_modules/pg/lib/client.js', 'pg'],
    ['processTicksAndRejections', 'node:internal/process/task_queues', 'node:internal'],
  ])('%s in %s is %s', (fn, url, area) => {
    expect(areaOf(fn, url)).toBe(area);
  });
});

describe('summarizeProfile', () => {
  it('sums self time per area and function, idle left out of the shares', () => {
    const profile: CpuProfile = {
      nodes: [
        {
          id: 1,
          callFrame: { functionName: '(root)', url: '', lineNumber: -1 },
          children: [2, 3, 4],
        },
        { id: 2, callFrame: { functionName: '(idle)', url: '', lineNumber: -1 } },
        {
          id: 3,
          callFrame: {
            functionName: 'parse',
            url: 'file:///r/node_modules/zod/v4/parse.js',
            lineNumber: 9,
          },
        },
        {
          id: 4,
          callFrame: {
            functionName: 'commit',
            url: 'file:///r/apps/ledger/dist/commit.js',
            lineNumber: 0,
          },
        },
      ],
      samples: [2, 3, 3, 4],
      timeDeltas: [5000, 3000, 3000, 2000],
      startTime: 0,
      endTime: 13000,
    };
    expect(summarizeProfile(profile)).toEqual({
      totalMs: 13,
      busyMs: 8,
      areas: [
        { name: 'zod', ms: 6, share: 0.75 },
        { name: 'world:ledger', ms: 2, share: 0.25 },
      ],
      functions: [
        { name: 'parse zod/v4/parse.js:10', ms: 6, share: 0.75 },
        { name: 'commit apps/ledger/dist/commit.js:1', ms: 2, share: 0.25 },
      ],
      callers: [
        { name: 'parse zod/v4/parse.js:10', ms: 6, share: 0.75 },
        { name: 'commit apps/ledger/dist/commit.js:1', ms: 2, share: 0.25 },
      ],
    });
  });

  it('counts only the samples inside the windows (CLOCK_MONOTONIC µs)', () => {
    const profile: CpuProfile = {
      nodes: [
        {
          id: 1,
          callFrame: {
            functionName: 'parse',
            url: 'file:///r/node_modules/zod/v4/parse.js',
            lineNumber: 9,
          },
        },
        {
          id: 2,
          callFrame: {
            functionName: 'commit',
            url: 'file:///r/apps/ledger/dist/commit.js',
            lineNumber: 0,
          },
        },
      ],
      samples: [2, 1, 1, 2],
      timeDeltas: [5000, 3000, 3000, 2000],
      startTime: 100_000,
      endTime: 113_000,
    };
    const s = summarizeProfile(profile, 15, [[107_000, 112_000]]);
    expect([s.totalMs, s.busyMs, s.areas]).toEqual([5, 6, [{ name: 'zod', ms: 6, share: 1 }]]);
  });

  it('charges native frames and Node internals to the library that caused them', () => {
    const frame = (functionName: string, url: string, lineNumber = 0) => ({
      functionName,
      url,
      lineNumber,
    });
    const profile: CpuProfile = {
      nodes: [
        { id: 1, callFrame: frame('(root)', ''), children: [2, 4] },
        {
          id: 2,
          callFrame: frame('write', 'file:///r/node_modules/pino/lib/tools.js', 4),
          children: [5],
        },
        {
          id: 5,
          callFrame: frame('handleWriteReq', 'node:internal/stream_base_commons', 45),
          children: [3],
        },
        { id: 3, callFrame: frame('writeBuffer', '') },
        { id: 4, callFrame: frame('writev', '') },
      ],
      samples: [3, 4],
      timeDeltas: [3000, 1000],
      startTime: 0,
      endTime: 4000,
    };
    const s = summarizeProfile(profile);
    expect([s.areas, s.functions.map((f) => f.name), s.callers.map((f) => f.name)]).toEqual([
      [
        { name: 'pino', ms: 3, share: 0.75 },
        { name: '(native)', ms: 1, share: 0.25 },
      ],
      ['handleWriteReq node:internal/stream_base_commons:46', 'writev'],
      ['write pino/lib/tools.js:5', 'writev'],
    ]);
  });
});
