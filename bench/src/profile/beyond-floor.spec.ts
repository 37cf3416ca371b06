import { beyondFloor, formatBeyondFloor, type ProfiledPhase } from './beyond-floor.js';
import type { ProfileSummary } from './cpuprofile.js';

/** A summary whose areas and callers are the given ms (shares are not read). */
function summary(areas: Record<string, number>, callers: Record<string, number>): ProfileSummary {
  const rows = (m: Record<string, number>) =>
    Object.entries(m).map(([name, ms]) => ({ name, ms, share: 0 }));
  const busyMs = Object.values(areas).reduce((a, b) => a + b, 0);
  return { totalMs: 1000, busyMs, areas: rows(areas), functions: [], callers: rows(callers) };
}

describe('beyondFloor (issue 19: where World spends beyond the floor)', () => {
  const world: ProfiledPhase = {
    calls: 100,
    cpuMsPerCall: { gateway: 3, planner: 2, postgres: 2 },
    profiles: {
      gateway: summary(
        { 'world:gateway': 100, '@nats-io/transport-node': 80 },
        { 'serve gw.js:1': 100, '_send nt.js:363': 80 },
      ),
      planner: summary({ zod: 60 }, { 'parse zod.js:1': 60 }),
    },
  };
  const floor: ProfiledPhase = {
    calls: 50,
    cpuMsPerCall: { gateway: 1.5, planner: 0.5, postgres: 1 },
    profiles: {
      gateway: summary(
        { 'bench:floor': 5, '@nats-io/transport-node': 30 },
        { 'tool floor.js:1': 5, '_send nt.js:363': 30 },
      ),
    },
  };

  it('ranks per process, per service and area, per service and function, by ms per call beyond the floor', () => {
    const b = beyondFloor('c1', world, floor, 3);
    expect({
      machine: [b.worldMachineMs, b.floorMachineMs],
      profiled: [b.worldProfiledMs, b.floorProfiledMs],
      processes: b.processes.map((r) => [r.role, r.excessMs, r.share]),
      areas: b.areas.map((r) => [r.role, r.name, r.worldMs, r.floorMs, r.excessMs.toFixed(3)]),
      functions: b.functions.map((r) => `${r.role}: ${r.name} ${r.excessMs.toFixed(2)}`),
    }).toEqual({
      machine: [7, 3],
      profiled: [2.4, 0.7],
      processes: [
        ['gateway', 1.5, 0.375],
        ['planner', 1.5, 0.375],
        ['postgres', 1, 0.25],
      ],
      areas: [
        ['gateway', 'world:gateway', 1, 0, '1.000'],
        ['planner', 'zod', 0.6, 0, '0.600'],
        ['gateway', '@nats-io/transport-node', 0.8, 0.6, '0.200'],
      ],
      functions: [
        'gateway: serve gw.js:1 1.00',
        'planner: parse zod.js:1 0.60',
        'gateway: _send nt.js:363 0.20',
      ],
    });
    // The share of a profile row is of the profiled excess (2.4 − 0.7 ms).
    expect(b.areas[0]!.share).toBeCloseTo(1 / 1.7, 10);
  });

  it('prints the three rankings', () => {
    const lines = formatBeyondFloor(beyondFloor('c1', world, floor, 3), 1);
    expect(lines).toEqual([
      '== beyond the floor, c1: machine CPU per call World 7.00 ms, floor 3.00 ms (×2.33); profiled busy per call World 2.40 ms, floor 0.70 ms',
      'per process (/proc CPU per call; share of the machine excess):',
      '   37.5 %  +1.500 ms (World 3.000, floor 1.500)  gateway',
      '   37.5 %  +1.500 ms (World 2.000, floor 0.500)  planner',
      '   25.0 %  +1.000 ms (World 2.000, floor 1.000)  postgres',
      'per service and area (--cpu-prof, callers view; share of the profiled excess):',
      '   58.8 %  +1.000 ms (World 1.000, floor 0.000)  gateway: world:gateway',
      'per service and function (--cpu-prof, callers view; share of the profiled excess):',
      '   58.8 %  +1.000 ms (World 1.000, floor 0.000)  gateway: serve gw.js:1',
    ]);
  });
});
