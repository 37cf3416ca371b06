/**
 * Reads a V8 `.cpuprofile` (node --cpu-prof) and tells where the self time went: by area
 * (World's own packages, each dependency, Node internals, GC) and by function. Pure.
 */

/** The parts of a .cpuprofile this reads. */
export interface CpuProfile {
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }>;
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** One row of a self-time breakdown. */
export interface SelfTime {
  name: string;
  ms: number;
  /** share of the non-idle time */
  share: number;
}

/** Where the self time of a profile went. */
export interface ProfileSummary {
  /** profiled wall time (of the windows, when given), ms */
  totalMs: number;
  /** non-idle samples' time, ms */
  busyMs: number;
  /** by package, each sample charged to the nearest frame outside Node's own code */
  areas: SelfTime[];
  /** by function, native frames charged to their JavaScript caller */
  functions: SelfTime[];
  /** by function, each sample charged to the nearest frame outside Node's own code (who caused it) */
  callers: SelfTime[];
}

const US_PER_MS = 1000;
const IDLE = new Set(['(idle)']);

/**
 * The area of a call frame: `world:<package>` for World's code, the npm package for a
 * dependency, `bench:<dir>` for the bench's own processes (the floor), `node:internal` for Node's
 * own JavaScript, `(gc)`/`(program)` for V8's buckets.
 * @internal exported for cpuprofile.spec.ts
 */
export function areaOf(functionName: string, url: string): string {
  if (url === '') {
    if (functionName === '(garbage collector)') return '(gc)';
    if (functionName.startsWith('(')) return functionName;
    return '(native)';
  }
  // The bench's own processes (the floor, the baseline) are not World: `bench:<dir>`.
  const bench = /\/bench\/(?:dist|src)\/([^/]+)\//.exec(url);
  if (bench !== null && !url.includes('/node_modules/')) return `bench:${bench[1]}`;
  const world = /\/(apps|packages)\/([^/]+)\/(dist|src)\//.exec(url);
  if (world !== null && !url.includes('/node_modules/')) return `world:${world[2]}`;
  const pnpm = /node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pnpm !== null) return pnpm[1]!;
  const plain = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (plain !== null) return plain[1]!;
  if (url.startsWith('node:')) return 'node:internal';
  return url;
}

function shortUrl(url: string): string {
  const i = url.lastIndexOf('/node_modules/');
  if (i >= 0)
    return url.slice(i + '/node_modules/'.length).replace(/^\.pnpm\/[^/]+\/node_modules\//, '');
  const w = /\/((?:apps|packages|bench)\/.*)$/.exec(url);
  return w ? w[1]! : url;
}

/**
 * Self time by area and by function (top `top` of each), idle excluded from the shares; native
 * frames are charged to their nearest JavaScript caller.
 * @param windows when given, only samples taken inside one of these [start, end) intervals
 *   count; they are in the profile's clock (µs of CLOCK_MONOTONIC, as process.hrtime)
 */
export function summarizeProfile(
  profile: CpuProfile,
  top = 15,
  windows?: Array<[number, number]>,
): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  let t = profile.startTime;
  let windowUs = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    t += delta;
    if (windows !== undefined && !windows.some(([a, b]) => t >= a && t < b)) return;
    selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
  });
  if (windows !== undefined) for (const [a, b] of windows) windowUs += b - a;
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // A native frame (a syscall binding such as writeBuffer) is charged to the nearest JavaScript
  // caller, so a socket write lands on the library that wrote (pg, nats, pino…), not on "(native)".
  const chargedFrame = (id: number) => {
    let node = byId.get(id)!;
    while (
      node.callFrame.url === '' &&
      !node.callFrame.functionName.startsWith('(') &&
      parent.has(node.id)
    ) {
      const up = byId.get(parent.get(node.id)!)!;
      if (up.callFrame.functionName === '(root)') break;
      node = up;
    }
    return node.callFrame;
  };
  // Who caused a sample: the nearest frame that is neither native nor Node's own JavaScript
  // (a socket write from pg lands on pg, one from nats.js on @nats-io/nats-core).
  const callerFrame = (id: number) => {
    let node = byId.get(id)!;
    const internal = (f: CpuProfile['nodes'][number]['callFrame']) =>
      (f.url === '' && !f.functionName.startsWith('(')) || f.url.startsWith('node:');
    while (internal(node.callFrame) && parent.has(node.id)) {
      const up = byId.get(parent.get(node.id)!)!;
      if (up.callFrame.functionName === '(root)') break;
      node = up;
    }
    return node.callFrame;
  };
  const callers = new Map<string, number>();
  const label = (frame: CpuProfile['nodes'][number]['callFrame']) =>
    `${frame.functionName || '(anonymous)'} ${frame.url === '' ? '' : `${shortUrl(frame.url)}:${frame.lineNumber + 1}`}`.trim();
  let busyUs = 0;
  for (const [id, us] of selfUs) {
    if (IDLE.has(byId.get(id)!.callFrame.functionName)) continue;
    const frame = chargedFrame(id);
    const caller = callerFrame(id);
    busyUs += us;
    const area = areaOf(caller.functionName, caller.url);
    areas.set(area, (areas.get(area) ?? 0) + us);
    functions.set(label(frame), (functions.get(label(frame)) ?? 0) + us);
    callers.set(label(caller), (callers.get(label(caller)) ?? 0) + us);
  }
  const rank = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: us / US_PER_MS, share: busyUs === 0 ? 0 : us / busyUs }));
  return {
    totalMs: (windows === undefined ? profile.endTime - profile.startTime : windowUs) / US_PER_MS,
    busyMs: busyUs / US_PER_MS,
    areas: rank(areas),
    functions: rank(functions),
    callers: rank(callers),
  };
}
