/**
 * Where World's time goes beyond the floor (issue 19 "Profile where World spends beyond the
 * floor, per service"): for one phase run on both systems, World's CPU per call minus the
 * floor's, per process (from /proc), per service and area, and per service and function (from
 * the --cpu-prof profiles, callers view: native and Node-internal time charged to the code that
 * caused it), ranked by the excess. Pure.
 */
import type { ProfileSummary, SelfTime } from './cpuprofile.js';

/** One system's run of one phase. */
export interface ProfiledPhase {
  /** calls answered in the phase */
  calls: number;
  /** /proc CPU ms per call of each process name (the harness left out by the caller) */
  cpuMsPerCall: Record<string, number>;
  /** each profiled process's summary of this phase's window, by process name (role) */
  profiles: Record<string, ProfileSummary>;
}

/** One row of the ranking: ms per call in World and in the floor, and the difference. */
interface Excess {
  /** the process (service role) */
  role: string;
  /** the area or function; the process itself in the per-process rows */
  name: string;
  worldMs: number;
  floorMs: number;
  excessMs: number;
  /** excessMs ÷ the whole excess of its kind (per process: machine CPU; else: profiled busy time) */
  share: number;
}

/** The ranking of one phase. */
export interface BeyondFloor {
  phase: string;
  /** machine CPU per call (every process but the harness), World and floor, ms */
  worldMachineMs: number;
  floorMachineMs: number;
  /** profiled busy time per call summed over the services, World and floor, ms */
  worldProfiledMs: number;
  floorProfiledMs: number;
  processes: Excess[];
  areas: Excess[];
  functions: Excess[];
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

function perCall(rows: SelfTime[], calls: number): Map<string, number> {
  return new Map(rows.map((r) => [r.name, calls === 0 ? 0 : r.ms / calls]));
}

/** Rows of `role` × key: World's per-call ms minus the floor's (0 where the floor has none). */
function diff(
  role: string,
  world: Map<string, number>,
  floor: Map<string, number>,
  total: number,
): Excess[] {
  const keys = new Set([...world.keys(), ...floor.keys()]);
  return [...keys].map((name) => {
    const w = world.get(name) ?? 0;
    const f = floor.get(name) ?? 0;
    return {
      role,
      name,
      worldMs: w,
      floorMs: f,
      excessMs: w - f,
      share: total === 0 ? 0 : (w - f) / total,
    };
  });
}

const ranked = (rows: Excess[], top: number) =>
  rows.sort((a, b) => b.excessMs - a.excessMs || a.name.localeCompare(b.name)).slice(0, top);

/**
 * Ranks World's CPU per call beyond the floor's in one phase.
 * @param top rows kept of the area and function rankings (every process row is kept)
 */
export function beyondFloor(
  phase: string,
  world: ProfiledPhase,
  floor: ProfiledPhase,
  top = 25,
): BeyondFloor {
  const worldMachineMs = sum(Object.values(world.cpuMsPerCall));
  const floorMachineMs = sum(Object.values(floor.cpuMsPerCall));
  const busy = (p: ProfiledPhase) =>
    sum(Object.values(p.profiles).map((s) => (p.calls === 0 ? 0 : s.busyMs / p.calls)));
  const worldProfiledMs = busy(world);
  const floorProfiledMs = busy(floor);
  const machineExcess = worldMachineMs - floorMachineMs;
  const profiledExcess = worldProfiledMs - floorProfiledMs;
  const processes = diff(
    '',
    new Map(Object.entries(world.cpuMsPerCall)),
    new Map(Object.entries(floor.cpuMsPerCall)),
    machineExcess,
  ).map((r) => ({ ...r, role: r.name }));
  const roles = [...new Set([...Object.keys(world.profiles), ...Object.keys(floor.profiles)])];
  const of = (p: ProfiledPhase, role: string, pick: (s: ProfileSummary) => SelfTime[]) =>
    perCall(p.profiles[role] === undefined ? [] : pick(p.profiles[role]!), p.calls);
  const areas = roles.flatMap((role) =>
    diff(
      role,
      of(world, role, (s) => s.areas),
      of(floor, role, (s) => s.areas),
      profiledExcess,
    ),
  );
  const functions = roles.flatMap((role) =>
    diff(
      role,
      of(world, role, (s) => s.callers),
      of(floor, role, (s) => s.callers),
      profiledExcess,
    ),
  );
  return {
    phase,
    worldMachineMs,
    floorMachineMs,
    worldProfiledMs,
    floorProfiledMs,
    processes: ranked(processes, Number.MAX_SAFE_INTEGER),
    areas: ranked(areas, top),
    functions: ranked(functions, top),
  };
}

/** The ranking as printable lines. */
export function formatBeyondFloor(b: BeyondFloor, rows = 15): string[] {
  const line = (r: Excess, withRole: boolean) =>
    `  ${`${(r.share * 100).toFixed(1)} %`.padStart(7)}  +${r.excessMs.toFixed(3)} ms (World ${r.worldMs.toFixed(3)}, floor ${r.floorMs.toFixed(3)})  ${withRole ? `${r.role}: ` : ''}${r.name}`;
  return [
    `== beyond the floor, ${b.phase}: machine CPU per call World ${b.worldMachineMs.toFixed(2)} ms, floor ${b.floorMachineMs.toFixed(2)} ms (×${(b.worldMachineMs / b.floorMachineMs).toFixed(2)}); profiled busy per call World ${b.worldProfiledMs.toFixed(2)} ms, floor ${b.floorProfiledMs.toFixed(2)} ms`,
    'per process (/proc CPU per call; share of the machine excess):',
    ...b.processes.map((r) => line(r, false)),
    'per service and area (--cpu-prof, callers view; share of the profiled excess):',
    ...b.areas.slice(0, rows).map((r) => line(r, true)),
    'per service and function (--cpu-prof, callers view; share of the profiled excess):',
    ...b.functions.slice(0, rows).map((r) => line(r, true)),
  ];
}
