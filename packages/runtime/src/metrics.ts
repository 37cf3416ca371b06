import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { LATENCY_BUCKETS_SECONDS } from '@world/contracts';

/** How a tool call ended, as `world_calls_total` counts it (see callOutcome in the planner). */
export type CallOutcome = 'ok' | 'refused' | 'denied' | 'failed' | 'unrecorded' | 'cancelled';
/** The timed phases of a call: planner plan/finish/commit, broker lease/execute (DESIGN.md §2). */
export type Phase = 'plan' | 'lease' | 'execute' | 'finish' | 'commit';

/**
 * World's Prometheus metrics of this process (README "Health, readiness, metrics"), all labelled
 * with the `replica` that counted them, so processes running several services (embedded mode) and
 * several replicas stay apart. Labels are low-cardinality: tool ids, surfaces, outcomes, effect
 * names and statuses, phases, HTTP route templates and status codes — never ids.
 */
export interface WorldMetrics {
  /** the process's registry: default Node metrics plus World's */
  registry: Registry;
  /** `world_calls_total{replica,tool,surface,outcome}` (planner) */
  calls: Counter<'replica' | 'tool' | 'surface' | 'outcome'>;
  /**
   * `world_call_cancels_total{replica}` (planner: client cancellations heard for a call this
   * replica was running at the time, whether or not it could still stop it)
   */
  callCancels: Counter<'replica'>;
  /** `world_phase_seconds{replica,phase}` (planner: plan, finish, commit; broker: lease, execute) */
  phaseSeconds: Histogram<'replica' | 'phase'>;
  /** `world_budget_denials_total{replica,effect}` (broker: decisions denied:budget) */
  budgetDenials: Counter<'replica' | 'effect'>;
  /** `world_lease_waits_total{replica}` (broker: acquisitions that found the lease held) */
  leaseWaits: Counter<'replica'>;
  /** `world_lease_wait_seconds{replica}` (broker: how long those acquisitions waited) */
  leaseWaitSeconds: Histogram<'replica'>;
  /** `world_lease_takeovers_total{replica}` (broker: leases taken from an expired holder) */
  leaseTakeovers: Counter<'replica'>;
  /** `world_effects_total{replica,effect,status}` (broker: every decision, status ok|failed|denied) */
  effects: Counter<'replica' | 'effect' | 'status'>;
  /** `world_ledger_head_index{replica}` (ledger: the head's entry index after its last commit) */
  ledgerHeadIndex: Gauge<'replica'>;
  /** `world_http_requests_total{replica,route,status}` (gateway) */
  httpRequests: Counter<'replica' | 'route' | 'status'>;
  /** `world_http_connections{replica}` (gateway: connections open now) */
  httpConnections: Gauge<'replica'>;
  /** `world_http_connections_closed_total{replica,reason}` (gateway: refused at the cap, or idle) */
  httpConnectionsClosed: Counter<'replica' | 'reason'>;
}

let metrics: WorldMetrics | undefined;

/**
 * The process's metrics, created on first use (one registry per process: every health server
 * and the gateway's /metrics serve the same one).
 */
export function worldMetrics(): WorldMetrics {
  if (metrics !== undefined) return metrics;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const buckets = [...LATENCY_BUCKETS_SECONDS];
  metrics = {
    registry,
    calls: new Counter({
      name: 'world_calls_total',
      help: 'Tool calls by tool, surface and outcome (ok, refused, denied, failed, unrecorded, cancelled)',
      labelNames: ['replica', 'tool', 'surface', 'outcome'],
      registers,
    }),
    callCancels: new Counter({
      name: 'world_call_cancels_total',
      help: 'Client cancellations heard for a call this planner replica was running',
      labelNames: ['replica'],
      registers,
    }),
    phaseSeconds: new Histogram({
      name: 'world_phase_seconds',
      help: 'Duration of a call phase (plan, lease, execute, finish, commit) in seconds',
      labelNames: ['replica', 'phase'],
      buckets,
      registers,
    }),
    budgetDenials: new Counter({
      name: 'world_budget_denials_total',
      help: 'Effects the broker denied for want of budget (denied:budget), by effect',
      labelNames: ['replica', 'effect'],
      registers,
    }),
    leaseWaits: new Counter({
      name: 'world_lease_waits_total',
      help: 'Episode lease acquisitions that found the lease held and waited',
      labelNames: ['replica'],
      registers,
    }),
    leaseWaitSeconds: new Histogram({
      name: 'world_lease_wait_seconds',
      help: 'How long an acquisition that found the episode lease held waited, in seconds',
      labelNames: ['replica'],
      buckets,
      registers,
    }),
    leaseTakeovers: new Counter({
      name: 'world_lease_takeovers_total',
      help: 'Episode leases taken over from an expired holder',
      labelNames: ['replica'],
      registers,
    }),
    effects: new Counter({
      name: 'world_effects_total',
      help: 'Effects that reached a decision, by effect and status (ok, failed, denied)',
      labelNames: ['replica', 'effect', 'status'],
      registers,
    }),
    ledgerHeadIndex: new Gauge({
      name: 'world_ledger_head_index',
      help: 'Entry index of the log head as this ledger replica last committed or read it',
      labelNames: ['replica'],
      registers,
    }),
    httpRequests: new Counter({
      name: 'world_http_requests_total',
      help: 'HTTP requests answered by the gateway, by route template and status code',
      labelNames: ['replica', 'route', 'status'],
      registers,
    }),
    httpConnections: new Gauge({
      name: 'world_http_connections',
      help: 'HTTP connections the gateway holds open',
      labelNames: ['replica'],
      registers,
    }),
    httpConnectionsClosed: new Counter({
      name: 'world_http_connections_closed_total',
      help: 'HTTP connections the gateway closed itself: refused (over the cap) or idle',
      labelNames: ['replica', 'reason'],
      registers,
    }),
  };
  return metrics;
}

/** The Prometheus text exposition of this process's registry, with its content type. */
export async function metricsExposition(): Promise<{ contentType: string; body: string }> {
  const { registry } = worldMetrics();
  return { contentType: registry.contentType, body: await registry.metrics() };
}

const NS_PER_SECOND = 1e9;

/** A monotonic clock in nanoseconds (process.hrtime.bigint; tests pass their own). */
export type MonotonicClock = () => bigint;

const hrtime: MonotonicClock = () => process.hrtime.bigint();

/** A monotonic start mark for elapsedSeconds (nanoseconds). */
export function startMark(clock: MonotonicClock = hrtime): bigint {
  return clock();
}

/**
 * Seconds elapsed since a startMark, on the same monotonic clock (never negative: the clock does
 * not go back, unlike the wall clock).
 * @param mark a startMark of `clock`, nanoseconds
 */
export function elapsedSeconds(mark: bigint, clock: MonotonicClock = hrtime): number {
  return Number(clock() - mark) / NS_PER_SECOND;
}

/** Records one phase's duration in `world_phase_seconds`. */
export function observePhase(replica: string, phase: Phase, mark: bigint): void {
  worldMetrics().phaseSeconds.observe({ replica, phase }, elapsedSeconds(mark));
}
