/**
 * The gateway's view of every replica (the Overview's services section), kept by a background
 * survey: every REPLICA_SURVEY_INTERVAL_MS (and once at start-up) it surveys each service's
 * `<service>.replicas` subject for REPLICA_SURVEY_WINDOW_MS and keeps the replies. The page
 * renders from the last survey and never waits for a window. A replica heard before and not in
 * the last survey is kept as quiet (with when it last answered) for QUIET_KEPT_MS, so a missing
 * replica is stated rather than silently dropped.
 */
import {
  REPLICA_SURVEY_INTERVAL_MS,
  REPLICA_SURVEY_WINDOW_MS,
  SURVEYED_SERVICES,
  type ReplicaReport,
  type SurveyedService,
} from '@world/contracts';
import type { RpcClient } from '@world/runtime';

/**
 * How long a replica that stopped answering stays listed as quiet (10 minutes).
 * @internal exported for replica-survey.spec.ts
 */
export const QUIET_KEPT_MS = 600_000;

/** A replica heard in an earlier survey that did not answer the last one. */
export interface QuietReplica {
  service: SurveyedService;
  instance: string;
  /** epoch ms of the last survey it answered */
  lastAnsweredMs: number;
}

/** One finished survey. */
export interface SurveySnapshot {
  /** epoch ms the survey was sent */
  surveyedAtMs: number;
  windowMs: number;
  /** the replies, by service in SURVEYED_SERVICES order, then by instance name */
  replicas: ReplicaReport[];
  quiet: QuietReplica[];
}

/** Options of a ReplicaSurvey (tests narrow the timings). */
export interface ReplicaSurveyOptions {
  intervalMs?: number;
  windowMs?: number;
  clock?: () => number;
}

/**
 * Surveys every service's replicas in the background and keeps the last result. start() runs
 * the first survey at once; stop() ends the timer and waits for a survey in flight.
 */
export class ReplicaSurvey {
  private last: SurveySnapshot | null = null;
  private readonly heard = new Map<string, QuietReplica>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  private readonly intervalMs: number;
  private readonly windowMs: number;
  private readonly clock: () => number;

  constructor(
    private readonly rpc: RpcClient,
    options: ReplicaSurveyOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? REPLICA_SURVEY_INTERVAL_MS;
    this.windowMs = options.windowMs ?? REPLICA_SURVEY_WINDOW_MS;
    this.clock = options.clock ?? Date.now;
  }

  /** The last finished survey, or null before the first one ends. */
  snapshot(): SurveySnapshot | null {
    return this.last;
  }

  /** Starts surveying: once now, then every intervalMs (the timer does not hold the process). */
  start(): void {
    if (this.timer !== undefined) return;
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.intervalMs);
    this.timer.unref();
  }

  /** Stops surveying and waits for the survey in flight. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Runs one survey now (one at a time: a call during a survey waits for that one). */
  refresh(): Promise<void> {
    this.running ??= this.surveyOnce().finally(() => (this.running = null));
    return this.running;
  }

  private async surveyOnce(): Promise<void> {
    const at = this.clock();
    const answers = await Promise.all(
      SURVEYED_SERVICES.map((s) =>
        this.rpc.survey(`${s}.replicas`, {}, { windowMs: this.windowMs }),
      ),
    );
    const replicas = answers.flatMap((replies) =>
      [...replies].sort((a, b) => (a.instance < b.instance ? -1 : 1)),
    );
    for (const r of replicas)
      this.heard.set(r.instance, { service: r.service, instance: r.instance, lastAnsweredMs: at });
    const answered = new Set(replicas.map((r) => r.instance));
    const quiet: QuietReplica[] = [];
    for (const [instance, q] of this.heard) {
      if (answered.has(instance)) continue;
      if (at - q.lastAnsweredMs > QUIET_KEPT_MS) this.heard.delete(instance);
      else quiet.push(q);
    }
    quiet.sort(
      (a, b) =>
        SURVEYED_SERVICES.indexOf(a.service) - SURVEYED_SERVICES.indexOf(b.service) ||
        (a.instance < b.instance ? -1 : 1),
    );
    this.last = { surveyedAtMs: at, windowMs: this.windowMs, replicas, quiet };
  }
}
