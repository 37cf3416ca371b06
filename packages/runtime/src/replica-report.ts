/**
 * What one replica answers the replica survey with (`<service>.replicas`, contracts replicas.ts):
 * its readiness as `GET /readyz` reports it, its start-up integrity scans, its uptime, and its
 * `world_phase_seconds` buckets, read from this process's registry for this replica's label only
 * (embedded mode runs several services, each its own replica, in one registry).
 */
import type { PhaseHistogram, ReplicaReport, SurveyedService } from '@world/contracts';
import { readiness, type ReadinessChecks } from './health.js';
import { worldMetrics } from './metrics.js';
import type { RpcClient } from './rpc.js';

/** Who answers a survey, and what its readiness is made of. */
export interface ReplicaIdentity {
  service: SurveyedService;
  replica: string;
  /** the replica's readiness checks (the ones its /readyz runs) */
  checks: ReadinessChecks;
  /** epoch ms it started at */
  startedAtMs: number;
  /** true once it began shutting down (the gateway's ShutdownGate) */
  isDraining?: () => boolean;
}

/**
 * This process's `world_phase_seconds` histograms of one replica, one per phase it observed,
 * phases in name order, buckets ascending with `+Inf` last as `le: null`.
 */
async function phaseHistograms(replica: string): Promise<PhaseHistogram[]> {
  const { values } = await worldMetrics().phaseSeconds.get();
  const byPhase = new Map<string, PhaseHistogram>();
  for (const v of values) {
    if (v.labels.replica !== replica) continue;
    const phase = String(v.labels.phase);
    const h = byPhase.get(phase) ?? { phase, buckets: [], count: 0, sumSeconds: 0 };
    byPhase.set(phase, h);
    if (v.metricName?.endsWith('_bucket') === true) {
      // prom-client labels each bucket with its bound `le` (not in the histogram's label type)
      const bound = (v.labels as Record<string, string | number | undefined>).le;
      const le = bound === '+Inf' ? null : Number(bound);
      h.buckets.push({ le, count: v.value });
    } else if (v.metricName?.endsWith('_count') === true) h.count = v.value;
    else if (v.metricName?.endsWith('_sum') === true) h.sumSeconds = v.value;
  }
  for (const h of byPhase.values())
    h.buckets.sort((a, b) => (a.le ?? Infinity) - (b.le ?? Infinity));
  return [...byPhase.values()].sort((a, b) => (a.phase < b.phase ? -1 : 1));
}

/** The replica's report now (readiness runs its checks, each bounded by READINESS_CHECK_MS). */
async function replicaReport(
  id: ReplicaIdentity,
  now: () => number = Date.now,
): Promise<ReplicaReport> {
  const [{ report }, phases] = await Promise.all([
    readiness(id.checks, id.isDraining?.() ?? false),
    phaseHistograms(id.replica),
  ]);
  return {
    instance: id.replica,
    service: id.service,
    status: report.status,
    checks: report.checks,
    ...(report.integrity !== undefined && { integrity: report.integrity }),
    uptimeSeconds: Math.max(0, (now() - id.startedAtMs) / 1000),
    phases,
  };
}

/**
 * Answers `<service>.replicas` for one replica on its RPC client, outside the queue group.
 * @returns the unsubscribe (call it first on close: a replica shutting down goes quiet)
 */
export function answerReplicaSurvey(rpc: RpcClient, id: ReplicaIdentity): () => void {
  return rpc.answer(`${id.service}.replicas`, () => replicaReport(id));
}
