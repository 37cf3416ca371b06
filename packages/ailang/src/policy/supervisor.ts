import { Buffer } from 'node:buffer';
import { existsSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  AILANG_SUPERVISOR_REPORT_MS,
  AILANG_WORKER_HEAP_MB,
  AILANG_WORKER_STACK_MB,
} from '@world/contracts';
import { withSlot } from '../toolchain/slots.js';
import type { ExecuteRequest, ExecuteResult } from './execute.js';
import type { OpJob, OpResult } from '../cli/run-op.js';
import type { WorkerJob, WorkerMessage } from './worker.js';

/**
 * The embedded runner's supervisor (ailang.md §1.5 "Supervised process", in a worker thread
 * instead of a process). The handler deadline is armed before the worker exists and bounds
 * everything; `timeout_ms` is armed when the admission decision arrives, so it measures the
 * program's execution and not the worker's start-up (which a loaded machine can stretch — the
 * one deliberate difference from the real supervisor, whose worker is a forked process). The
 * worker is terminated at either limit or when stdout+stderr pass `max_output_bytes`; the result is the
 * raw `{exitCode, stdout, stderr}` the real binary would produce — the `policy:` admission line
 * and, for a limit, the `policy-result:` envelope on stderr, exit 3 — so both toolchains go
 * through the same classifyRunOutcome. Workers share the process-wide slots (toolchain/slots.ts).
 */

/** What a run produced, as a process would. */
export interface RawRunOutput {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** The worker script: next to this module in dist/, or the built copy when running from src/. */
function workerScript(): string {
  const here = fileURLToPath(import.meta.url);
  const sibling = join(dirname(here), 'worker.js');
  if (existsSync(sibling)) return sibling;
  const marker = `${sep}src${sep}policy${sep}`;
  const i = here.lastIndexOf(marker);
  const built = i < 0 ? sibling : join(here.slice(0, i), 'dist', 'policy', 'worker.js');
  if (!existsSync(built)) {
    throw new Error(
      `the embedded runner's worker script is missing (${built}); build @world/ailang first`,
    );
  }
  return built;
}

/** Go's time.Duration text for a millisecond count: 8s, 1.5s, 500ms, 1m30s. */
export function goDuration(ms: number): string {
  if (ms < MS_PER_S) return `${ms}ms`;
  const h = Math.floor(ms / MS_PER_H);
  const m = Math.floor((ms % MS_PER_H) / MS_PER_MIN);
  const s = (ms % MS_PER_MIN) / MS_PER_S;
  const sec = `${Number(s.toFixed(3))}s`;
  if (h > 0) return `${h}h${m}m${sec}`;
  if (m > 0) return `${m}m${sec}`;
  return sec;
}

const MS_PER_S = 1000;
const MS_PER_MIN = 60 * MS_PER_S;
const MS_PER_H = 60 * MS_PER_MIN;

// A supervisor limit exits 3 (ailang.md §1.5 outcome table).
const LIMIT_EXIT_CODE = 3;

function startWorker(job: WorkerJob): Worker {
  return new Worker(workerScript(), {
    workerData: job,
    env: {},
    execArgv: [],
    resourceLimits: {
      maxOldGenerationSizeMb: AILANG_WORKER_HEAP_MB,
      stackSizeMb: AILANG_WORKER_STACK_MB,
    },
  });
}

/** Why an op's worker ended without a result; `heapExhausted` when it hit AILANG_WORKER_HEAP_MB. */
export interface OpFailure {
  failed: string;
  heapExhausted?: boolean;
}

/**
 * Runs one CLI op job in a worker thread, so a pathological program cannot block the caller.
 * @returns the op's result, or 'timeout' when `deadlineMs` passed first (the thread is gone)
 */
export async function superviseOp(
  job: OpJob,
  deadlineMs: number,
): Promise<OpResult | 'timeout' | OpFailure> {
  return withSlot(
    () =>
      new Promise((resolve) => {
        let outcome: OpResult | 'timeout' | OpFailure | null = null;
        const worker = startWorker({ kind: 'op', job });
        const timer = setTimeout(() => {
          outcome ??= 'timeout';
          void worker.terminate();
        }, deadlineMs);
        worker.on('message', (m: WorkerMessage) => {
          if (m.t === 'op') outcome ??= m.result;
        });
        worker.on('error', (e) => {
          outcome ??= { failed: failureText(e), heapExhausted: isOutOfMemory(e) };
        });
        worker.on('exit', () => {
          clearTimeout(timer);
          resolve(outcome ?? { failed: 'the worker exited without a result' });
        });
      }),
  );
}

type Limit = { reason: 'timeout' | 'output_limit' | 'worker_failed'; message: string };

/**
 * Runs one program under its policy in a worker thread and waits for the thread to be gone.
 * @param deadlineMs the handler's hard cap on the whole run, start-up and admission included
 */
export async function superviseRun(req: ExecuteRequest, deadlineMs: number): Promise<RawRunOutput> {
  return withSlot(() => runWorker(req, deadlineMs));
}

function runWorker(req: ExecuteRequest, deadlineMs: number): Promise<RawRunOutput> {
  const policy = req.policy;
  const cap = policy.limits.max_output_bytes;
  return new Promise((resolve) => {
    let decision: Extract<WorkerMessage, { t: 'decision' }> | null = null;
    let result: ExecuteResult | null = null;
    let limit: Limit | null = null;
    let failure: Error | null = null;
    let written = 0;
    const out: string[] = [];
    const err: string[] = [];
    let worker: Worker | null = null;

    const stop = (l: Limit): void => {
      if (limit !== null || result !== null) return;
      limit = l;
      void worker?.terminate();
    };
    // The deadline is armed before the worker exists (ailang.md §1.5); timeout_ms at admission.
    // It fires AILANG_SUPERVISOR_REPORT_MS early, so the report beats the broker's handler cap.
    const deadline = setTimeout(
      () =>
        stop({
          reason: 'timeout',
          message: `exceeded the handler deadline (${goDuration(deadlineMs)}); worker thread terminated`,
        }),
      Math.max(0, deadlineMs - AILANG_SUPERVISOR_REPORT_MS),
    );
    let timer: NodeJS.Timeout | null = null;

    const take = (chunk: string, into: string[]): void => {
      if (limit !== null) return;
      const bytes = Buffer.byteLength(chunk, 'utf8');
      if (written + bytes > cap) {
        into.push(
          Buffer.from(chunk, 'utf8')
            .subarray(0, cap - written)
            .toString('utf8')
            .replace(/\uFFFD$/, ''),
        );
        written = cap;
        stop({
          reason: 'output_limit',
          message: `exceeded max_output_bytes (${cap}); worker thread terminated`,
        });
        return;
      }
      written += bytes;
      into.push(chunk);
    };

    worker = startWorker({ kind: 'run', req });
    worker.on('message', (m: WorkerMessage) => {
      switch (m.t) {
        case 'decision':
          decision = m;
          if (m.admitted) {
            timer = setTimeout(
              () =>
                stop({
                  reason: 'timeout',
                  message: `exceeded timeout_ms (${goDuration(policy.timeout_ms)}); worker thread terminated`,
                }),
              policy.timeout_ms,
            );
          }
          break;
        case 'out':
          take(m.s, out);
          break;
        case 'err':
          take(m.s, err);
          break;
        case 'op':
          break;
        case 'done':
          if (m.result.kind === 'output_limit') {
            stop({
              reason: 'output_limit',
              message: `exceeded max_output_bytes (${cap}); worker stopped`,
            });
          } else if (limit === null) {
            result = m.result;
          }
          break;
      }
    });
    worker.on('error', (e) => {
      failure = e;
    });
    worker.on('exit', () => {
      clearTimeout(deadline);
      if (timer) clearTimeout(timer);
      resolve(compose(req, decision, result, limit, failure, out.join(''), err.join('')));
    });
  });
}

function compose(
  req: ExecuteRequest,
  decision: Extract<WorkerMessage, { t: 'decision' }> | null,
  result: ExecuteResult | null,
  limit: Limit | null,
  failure: Error | null,
  stdout: string,
  stderr: string,
): RawRunOutput {
  const policy = req.policy;
  const envelope = (stage: 'admit' | 'execute', reason: string, message: string): string =>
    `policy-result: ${JSON.stringify({
      version: 1,
      stage,
      reason,
      message,
      policy_digest: policy.digest,
      security_mode: policy.security_mode,
    })}\n`;
  if (decision === null) {
    if (limit !== null)
      return {
        exitCode: LIMIT_EXIT_CODE,
        stdout: '',
        stderr: envelope('admit', limit.reason, limit.message),
      };
    const why = failure
      ? `worker failed before an admission decision: ${failureText(failure)}`
      : 'worker exited without an admission decision';
    return { exitCode: 1, stdout: '', stderr: envelope('admit', 'no_decision', why) };
  }
  if (!decision.admitted)
    return { exitCode: decision.exitCode, stdout: decision.stdout, stderr: '' };
  let effective = limit;
  if (effective === null && result === null) {
    effective = {
      reason: 'worker_failed',
      message: failure
        ? `worker failed: ${failureText(failure)}`
        : 'worker exited without finishing the run',
    };
  }
  let errText = stderr;
  if (errText !== '' && !errText.endsWith('\n')) errText += '\n';
  errText += `policy: ${decision.line}\n`;
  if (effective !== null) {
    errText += envelope('execute', effective.reason, effective.message);
    return { exitCode: LIMIT_EXIT_CODE, stdout, stderr: errText };
  }
  return { exitCode: (result as { exitCode: number }).exitCode, stdout, stderr: errText };
}

function isOutOfMemory(e: Error): boolean {
  return (e as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY';
}

function failureText(e: Error): string {
  if (isOutOfMemory(e))
    return `the program exhausted the worker heap (${AILANG_WORKER_HEAP_MB} MiB)`;
  return e.message;
}
