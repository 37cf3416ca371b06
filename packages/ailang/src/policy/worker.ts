import { parentPort, workerData } from 'node:worker_threads';
import { runOp, type OpJob, type OpResult } from '../cli/run-op.js';
import { execute, type ExecuteRequest, type ExecuteResult } from './execute.js';

/**
 * Worker-thread entry of the embedded toolchain (supervisor.ts). A `run` job executes one
 * program and reports over the parent port — the admission decision first, then output chunks
 * as they are written (so a timeout keeps whatever was printed), then how the run ended. An
 * `op` job runs one CLI op (check, iface, …) off the caller's thread and posts its result.
 */

/** What a worker is asked to do. */
export type WorkerJob = { kind: 'run'; req: ExecuteRequest } | { kind: 'op'; job: OpJob };

/** Messages a worker sends its supervisor. */
export type WorkerMessage =
  | { t: 'decision'; admitted: true; line: string }
  | { t: 'decision'; admitted: false; stdout: string; exitCode: number }
  | { t: 'out'; s: string }
  | { t: 'err'; s: string }
  | { t: 'done'; result: ExecuteResult }
  | { t: 'op'; result: OpResult };

const port = parentPort;
if (port !== null) {
  const post = (m: WorkerMessage): void => port.postMessage(m);
  const job = workerData as WorkerJob;
  if (job.kind === 'op') {
    post({ t: 'op', result: runOp(job.job) });
  } else {
    const result = execute(job.req, {
      decision: (d) => post({ t: 'decision', ...d }),
      stdout: (s) => post({ t: 'out', s }),
      stderr: (s) => post({ t: 'err', s }),
    });
    post({ t: 'done', result });
  }
}
