/**
 * Every number of the benchmark, named once (CONVENTIONS.md "Limits and deadlines"): the
 * scenario sizes of a full run and of `--quick`, and the targets of issue 7.
 */

/** Size of the file every call reads: 2 KiB (issue 7: "ailang-read of a 2 KiB file"). */
export const FILE_BYTES = 2 * 1024;
/** The file's name inside every worktree and the baseline's directory. */
export const FILE_NAME = 'bench.txt';
/** The tool both servers expose; World's is the real ailang-read. */
export const TOOL_NAME = 'ailang-read';
/** Budget of every bench grant, in calls: ample, never the limit (issue 7). */
export const AMPLE_BUDGET = 1_000_000_000;
/** Sessions outlive any run. */
export const SESSION_TTL_SECONDS = 24 * 3600;
/** The MCP revision the raw HTTP driver speaks (the 2025-era path every client reaches). */
export const RAW_PROTOCOL_VERSION = '2025-11-25';

/** Clients hammering one episode in the lease-contention scenario (issue 7). */
export const CONTENTION_CLIENTS = 8;
/** Entries per page of the log-read scenario (issue 7: GET /v1/log?from=…&limit=500). */
export const LOG_PAGE = 500;

/** RSS is sampled this often, ms. */
export const RSS_SAMPLE_MS = 200;
/** A spawned process must log ready within this long (a first `world start` runs initdb). */
export const READY_TIMEOUT_MS = 90_000;
/** Grace between SIGTERM and SIGKILL when stopping a process. */
export const STOP_GRACE_MS = 15_000;
/** Timeout of one operator or ledger request from the harness. */
export const HARNESS_REQUEST_MS = 30_000;
/** Commits kept in flight at once while filling the log (they serialize on the head row). */
export const FILL_IN_FLIGHT = 16;
/** The harness's own lease on the episode it drives to call 10,000, ms. */
export const PUMP_LEASE_MS = 600_000;
/** The broker handler cap the pump asks for, ms (the planner's default share, issue 7 §deadlines). */
export const PUMP_HANDLER_MS = 10_000;

/** The sizes of one run. */
export interface Profile {
  name: 'full' | 'quick';
  /** calls before each measured window, per scenario (spread over its clients) */
  warmup: number;
  /** measured calls at concurrency 1 */
  callsC1: number;
  /** measured calls at concurrency 8 and 32 and under contention */
  callsConcurrent: number;
  /** measured log reads */
  logReads: number;
  /** log size (entries) of the first growth point */
  growthSmall: number;
  /** log size (entries) of the second growth point */
  growthLarge: number;
  /** the early call of one episode ("call 10") */
  episodeEarly: number;
  /** the late call of one episode ("call 10,000") */
  episodeLate: number;
  /** calls measured around each of those two points */
  episodeWindow: number;
}

/** A full run (issue 7). */
export const FULL: Profile = {
  name: 'full',
  warmup: 100,
  callsC1: 1000,
  callsConcurrent: 1000,
  logReads: 200,
  growthSmall: 1_000,
  growthLarge: 100_000,
  episodeEarly: 10,
  episodeLate: 10_000,
  episodeWindow: 200,
};

/** `--quick`: a smoke run under a minute; its numbers are not judged. */
export const QUICK: Profile = {
  name: 'quick',
  warmup: 0,
  callsC1: 16,
  callsConcurrent: 32,
  logReads: 5,
  growthSmall: 50,
  growthLarge: 300,
  episodeEarly: 10,
  episodeLate: 30,
  episodeWindow: 5,
};

/** Issue 7's targets (2-core box, everything on one machine). */
export const TARGETS = {
  /** distributed, concurrency 1: p50 overhead over the baseline, ms */
  distributedC1P50OverheadMs: 3,
  /** distributed, concurrency 1: p99 overhead over the baseline, ms */
  distributedC1P99OverheadMs: 12,
  /** distributed, 32 connections over 32 episodes: World's calls/s over the baseline's */
  distributedC32ThroughputRatio: 0.5,
  /** embedded, concurrency 1: p50 overhead, ms */
  embeddedC1P50OverheadMs: 3,
  /** embedded, 32 connections over 32 episodes: World's calls/s over the baseline's (issue 13) */
  embeddedC32ThroughputRatio: 0.35,
  /** embedded, 32 connections: machine CPU per call (World + its PostgreSQL) over the baseline's (issue 13) */
  embeddedC32CpuRatio: 3,
  /** growth: p50 at the large log within this fraction of p50 at the small log */
  growthP50Change: 0.1,
  /** growth: the late call of an episode within this fraction of the early call */
  episodeP50Change: 0.1,
  /** GET /v1/log?limit=500 p50 at the large log, ms */
  logReadP50Ms: 20,
  /** each service's peak RSS under the 32-client load, MB */
  serviceRssMb: 200,
} as const;

/** Issue 19's targets against the floor (distributed, same run): World ÷ floor. */
export const FLOOR_TARGETS = {
  /** concurrency 1: p50 at most this multiple of the floor's */
  c1P50Ratio: 1.25,
  /** concurrency 1: p99 at most this multiple of the floor's */
  c1P99Ratio: 1.5,
  /** 32 connections over 32 episodes: calls/s at least this fraction of the floor's */
  c32ThroughputRatio: 0.8,
  /** 32 connections over 32 episodes: machine CPU per call at most this multiple of the floor's */
  c32CpuRatio: 1.25,
} as const;
