/**
 * The replica survey (DESIGN.md §5a, the workbench's Overview): every replica of every service
 * answers `<service>.replicas` — subscribed outside its service's queue group, so one request
 * gets one reply per replica — with what its `/readyz` reports and its phase latency histogram.
 * The gateway collects the replies for REPLICA_SURVEY_WINDOW_MS (RpcClient.survey).
 */
import { z } from 'zod';

/** The services a survey asks, in the order the Overview lists them. */
export const SURVEYED_SERVICES = ['gateway', 'planner', 'broker', 'ledger'] as const;
export type SurveyedService = (typeof SURVEYED_SERVICES)[number];

/** How long a survey collects replies after its one request (ms). */
export const REPLICA_SURVEY_WINDOW_MS = 500;
/**
 * How often the gateway surveys in the background (ms): the Overview renders from the last survey
 * and never waits for a window (a page renders in at most 100 ms of server time).
 */
export const REPLICA_SURVEY_INTERVAL_MS = 5_000;

const Count = z.number().int().nonnegative();

/** A start-up integrity scan's report (IntegrityReport in stored.ts), as a replica sends it. */
const IntegrityReportSchema = z.object({
  state: z.enum(['scanning', 'clean', 'mismatch']),
  scanned: Count,
  mismatches: Count,
  problems: z.array(z.string()),
  complete: z.boolean(),
  resume: z.string().optional(),
});

/**
 * One phase's histogram of `world_phase_seconds` in one replica: cumulative counts per upper
 * bound (seconds, ascending, as LATENCY_BUCKETS_SECONDS; the last bound `+Inf` is `null`),
 * as Prometheus keeps them.
 */
const PhaseHistogramSchema = z.object({
  phase: z.string().min(1),
  buckets: z.array(z.object({ le: z.number().positive().nullable(), count: Count })),
  count: Count,
  sumSeconds: z.number().nonnegative(),
});
export type PhaseHistogram = z.infer<typeof PhaseHistogramSchema>;

/** What one replica answers a survey with. */
export const ReplicaReportSchema = z.object({
  /** the replica's name (WORLD_REPLICA, or its generated `<service>-<hex>`) */
  instance: z.string().min(1),
  service: z.enum(SURVEYED_SERVICES),
  /** the status its `/readyz` would report now */
  status: z.enum(['ready', 'unready', 'draining']),
  /** each readiness check that applies to it, `ok` or `failed` */
  checks: z.object({
    database: z.enum(['ok', 'failed']).optional(),
    nats: z.enum(['ok', 'failed']).optional(),
  }),
  /** its start-up integrity scans by service (services that own hashed data) */
  integrity: z.record(z.string(), IntegrityReportSchema).optional(),
  uptimeSeconds: z.number().nonnegative(),
  /** its `world_phase_seconds` histograms, one per phase it timed at least once */
  phases: z.array(PhaseHistogramSchema),
});
export type ReplicaReport = z.infer<typeof ReplicaReportSchema>;
