/**
 * The AG-UI event stream, `POST /agui` (README "The workbench"; the AG-UI protocol's HTTP+SSE
 * transport, events typed by @ag-ui/core and framed by @ag-ui/encoder): `RUN_STARTED`, a
 * `STATE_SNAPSHOT` with the cursor (the next log index), one `CUSTOM` `world.entry.committed` per
 * committed entry — the entry exactly as GET /v1/log serves it — each followed by a
 * `STATE_DELTA` moving the cursor, then `RUN_FINISHED`. A client resumes by sending the cursor
 * back in `state.cursor`. Quiet periods carry an SSE comment heartbeat every AGUI_HEARTBEAT_MS so
 * the client can say when World last checked. Bounded: AGUI_MAX_STREAMS at once (503 with
 * Retry-After beyond), AGUI_RUN_MS per run, AGUI_BODY_MAX_BYTES per request body.
 */
import { EventType, type BaseEvent } from '@ag-ui/core';
import { EventEncoder } from '@ag-ui/encoder';
import { BadRequestError, confinementOf, PAGE_MAX, type ReadScope } from '@world/contracts';
import { CommittedEvents, LogCursor } from '../provenance/log-stream.js';
import type { LogEntryView, ReadLog } from '../provenance/read-log.js';

/** Streams open (or being admitted) at once per gateway. */
export const AGUI_MAX_STREAMS = 64;
/**
 * Streams one session credential may hold open at once per gateway: a quarter of
 * AGUI_MAX_STREAMS, so one session's tabs cannot take every slot and pause the operator's live
 * timeline (the operator credential's share is the whole AGUI_MAX_STREAMS).
 */
export const AGUI_MAX_STREAMS_PER_CREDENTIAL = 16;
/** How long one run lasts before RUN_FINISHED (the client resumes from the cursor). */
const AGUI_RUN_MS = 60_000;
/** The longest request body (a RunAgentInput; World reads only threadId, runId, state.cursor). */
export const AGUI_BODY_MAX_BYTES = 64 * 1024;
/** Heartbeat period of a quiet stream; also how often the log is re-read (events are at most once). */
const AGUI_HEARTBEAT_MS = 2_000;
/** Seconds a refused client should wait (Retry-After). */
export const AGUI_RETRY_AFTER_S = 5;
/** The CUSTOM event's name. */
const ENTRY_COMMITTED = 'world.entry.committed';

/** What World reads of a RunAgentInput. */
export interface AguiStart {
  threadId: string;
  runId: string;
  cursor: number;
}

const ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Reads the RunAgentInput fields World uses.
 * @param headIndex the head's index (-1 before genesis): a run without a cursor starts after it
 * @throws BadRequestError naming the field that is missing or not well formed
 */
export function parseAguiInput(body: Record<string, unknown>, headIndex: number): AguiStart {
  const { threadId, runId, state } = body;
  if (typeof threadId !== 'string' || !ID.test(threadId))
    throw new BadRequestError('threadId must be 1-128 of [A-Za-z0-9._:-]');
  if (typeof runId !== 'string' || !ID.test(runId))
    throw new BadRequestError('runId must be 1-128 of [A-Za-z0-9._:-]');
  const cursor = (state as { cursor?: unknown } | undefined | null)?.cursor;
  if (cursor === undefined || cursor === null) return { threadId, runId, cursor: headIndex + 1 };
  if (typeof cursor !== 'number' || !Number.isSafeInteger(cursor) || cursor < 0)
    throw new BadRequestError('state.cursor must be a non-negative integer');
  // a cursor past the next index would wait silently for entries that may never be committed
  if (cursor > headIndex + 1)
    throw new BadRequestError(
      `state.cursor ${cursor} is beyond the log's next index ${headIndex + 1}`,
    );
  return { threadId, runId, cursor };
}

/** Where a run writes (the HTTP response). */
interface AguiSink {
  write(text: string): boolean;
  drained(): Promise<void>;
}

/** One run's needs. */
export interface AguiRun {
  /** the log's pages */
  log: Pick<ReadLog, 'range'>;
  events: CommittedEvents;
  scope: ReadScope;
  start: AguiStart;
  sink: AguiSink;
  signal: AbortSignal;
  runMs?: number;
  heartbeatMs?: number;
  clock?: () => number;
  /**
   * Asked before each read of the log (at least every heartbeat): why the caller's credential no
   * longer reads (revoked, expired), or null while it does. A reason ends the run with RUN_ERROR.
   */
  credential?: () => Promise<string | null>;
}

/** Entries are the shared skeleton (contracts VISIBILITY): every caller sees every entry. */
function visible(scope: ReadScope): boolean {
  return confinementOf(scope, 'entry') === null;
}

/**
 * Runs one AG-UI stream. Resolves with the next cursor; a read that fails ends the run with
 * RUN_ERROR (never throws).
 */
export async function runAgui(run: AguiRun): Promise<number> {
  const encoder = new EventEncoder();
  const clock = run.clock ?? Date.now;
  const heartbeatMs = run.heartbeatMs ?? AGUI_HEARTBEAT_MS;
  const ends = clock() + (run.runMs ?? AGUI_RUN_MS);
  const { threadId, runId } = run.start;
  const send = async (event: BaseEvent & Record<string, unknown>) => {
    if (!run.sink.write(encoder.encode(event))) await run.sink.drained();
  };
  // Flagged: an entry whose fields do not hash to its entry hash is delivered with `corrupt`
  // (to be shown ✗, never as valid) instead of ending every later run at it.
  const cursor = new LogCursor(run.start.cursor, async (from) => {
    const page = await run.log.range(String(from), String(PAGE_MAX), true);
    return page.items;
  });
  let wake: (() => void) | undefined;
  const stop = run.events.listen((event) => {
    if (event.entryIndex >= cursor.next) wake?.();
  });
  const onAbort = () => wake?.();
  run.signal.addEventListener('abort', onAbort);
  try {
    await send({ type: EventType.RUN_STARTED, threadId, runId });
    await send({ type: EventType.STATE_SNAPSHOT, snapshot: { cursor: cursor.next } });
    while (!run.signal.aborted) {
      const ended = (await run.credential?.()) ?? null;
      if (ended !== null) {
        if (!run.signal.aborted)
          await send({ type: EventType.RUN_ERROR, message: ended, code: 'credential' });
        return cursor.next;
      }
      const entries: LogEntryView[] = await cursor.drain();
      for (const entry of entries) {
        if (run.signal.aborted) return cursor.next;
        if (!visible(run.scope)) continue;
        await send({ type: EventType.CUSTOM, name: ENTRY_COMMITTED, value: entry });
        await send({
          type: EventType.STATE_DELTA,
          delta: [{ op: 'replace', path: '/cursor', value: entry.header.entryIndex + 1 }],
        });
      }
      if (entries.length === 0 && !run.sink.write(`: checked ${clock()} cursor ${cursor.next}\n\n`))
        await run.sink.drained();
      const left = ends - clock();
      if (left <= 0) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(heartbeatMs, left));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
    if (!run.signal.aborted) await send({ type: EventType.RUN_FINISHED, threadId, runId });
  } catch (err) {
    if (!run.signal.aborted)
      run.sink.write(
        encoder.encode({
          type: EventType.RUN_ERROR,
          message: err instanceof Error ? err.message : String(err),
        } as BaseEvent),
      );
  } finally {
    stop();
    run.signal.removeEventListener('abort', onAbort);
  }
  return cursor.next;
}
