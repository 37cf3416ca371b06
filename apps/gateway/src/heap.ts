import { setFlagsFromString } from 'node:v8';

/**
 * The gateway process's old-generation growing factor, as V8's `--heap-growing-percent`: after
 * each full GC the next one is due when the old generation reaches (1 + 75/100) × what survived.
 *
 * Why (bench/README.md "What the misses are made of"): under 32 concurrent MCP clients the
 * gateway's live heap stays at 35–40 MB (modules, schemas; the heap-used minima after full GCs
 * do not grow with the number of calls — no per-request state is retained), but every in-flight
 * POST's objects (web Request/Response, SDK transport, JSON-RPC messages) survive a scavenge or
 * two and are promoted. V8's default factor for this machine's 4 GB heap limit is up to 4×, so
 * the old generation filled with 90–130 MB of garbage between full GCs (3 in a 3,600-request
 * run) and RSS peaked at 237–270 MB (VmRSS: ~48 MB node binary text, ~10 MB malloc, the rest
 * V8 pages; the young generation is the default 2 × 16 MB). With 1.75× the old generation stays
 * at 55–65 MB and the peak under the MCP load at 176–179 MB, for 9 full GCs in the same run and
 * no measurable CPU cost. 1.5× (50) reached 166 MB but doubled the CPU of a 500-entry log read
 * (22 full GCs: each page is ~300 KB of large strings that go straight to the old generation).
 *
 * It is not a heap cap: the limit (`--max-old-space-size`) is untouched, so 8 MiB bodies can
 * still grow the heap as far as they need. Set in-process (V8 reads the flag at each full GC)
 * so it applies however the gateway is started — `world up`, the container, the bench.
 * @internal exported for heap.spec.ts
 */
export const HEAP_GROWING_PERCENT = 75;

const FLAG = '--heap-growing-percent';

/**
 * Applies HEAP_GROWING_PERCENT unless the process was started with its own
 * `--heap-growing-percent` (node flags or NODE_OPTIONS), which then wins.
 * @param execArgv the node flags the process was started with (default `process.execArgv`)
 * @param nodeOptions the NODE_OPTIONS it was started with (default the environment's)
 * @returns whether the flag was set
 */
export function tuneGatewayHeap(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string = process.env.NODE_OPTIONS ?? '',
): boolean {
  const given = [...execArgv, ...nodeOptions.split(/\s+/)].some(
    (arg) => arg === FLAG || arg.startsWith(`${FLAG}=`) || arg.startsWith('--heap_growing_percent'),
  );
  if (given) return false;
  setFlagsFromString(`${FLAG}=${HEAP_GROWING_PERCENT}`);
  return true;
}
