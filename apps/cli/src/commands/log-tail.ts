/**
 * `world log tail [--from N] [--follow] [--raw]` (world-spec §7.3): one line per entry,
 * `#<index> <entryHash 8 hex> <writtenBy> [<episode> <skill> [<Effect> <status>]|[no effects]]`.
 * `--follow` keeps reading the gateway's live tail (`GET /v1/log/stream`), reconnecting from its
 * last index with a backoff of at most 5 s, and prints each entry once.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import {
  LOG_TAIL_BACKOFF_MAX_MS,
  LOG_TAIL_BACKOFF_MIN_MS,
  LOG_TAIL_DEFAULT,
  PAGE_MAX,
} from '@world/contracts';
import { gatewayUrl, readerToken } from './client/credentials.js';
import { refHex, shortRef } from './client/format.js';
import { GatewayClient, GatewayHttpError, httpError, unreachable } from './client/http.js';
import {
  entryIndexOf,
  HttpProvenance,
  jsonOf,
  type LogEntry,
  type Provenance,
} from './client/provenance.js';
import { warner, type Output } from './operator.js';
import { CliError } from './util.js';

import { effectStatus, INVOCATION_RECORD_IDS } from '@world/why';

/**
 * The tail line of one entry (world-spec §7.3): the invocation record fills episode and skill,
 * each effect record its effect and status; an entry whose body is not an invocation record
 * (genesis, REST commits) shows its header only.
 * @internal exported for log-tail.spec.ts
 */
export async function tailLine(
  entry: LogEntry,
  reads: Pick<Provenance, 'object'>,
): Promise<string> {
  const head = `#${entry.header.entryIndex} ${refHex(entry.entryHash)} ${entry.header.writtenBy}`;
  try {
    const record = await reads.object(entry.transitionRef);
    if (record === null) return `${head} (record ${shortRef(entry.transitionRef)} not found)`;
    if (!INVOCATION_RECORD_IDS.includes(record.semanticId)) return head;
    const body = jsonOf(record.payload) as
      { episodeId?: unknown; skillId?: unknown; effects?: unknown } | undefined;
    if (body === undefined) return `${head} (record ${shortRef(entry.transitionRef)} is not JSON)`;
    const refs = Array.isArray(body.effects) ? (body.effects as string[]) : [];
    const effects: string[] = [];
    for (const ref of refs) {
      const object = await reads.object(ref);
      const effect =
        object === null ? undefined : (jsonOf(object.payload) as { effect?: unknown } | undefined);
      effects.push(
        effect === undefined
          ? `${shortRef(ref)} unavailable`
          : `${String(effect.effect)} ${effectStatus(effect as object)}`,
      );
    }
    return `${head} ${String(body.episodeId)} ${String(body.skillId)} [${effects.length === 0 ? 'no effects' : effects.join(', ')}]`;
  } catch (err) {
    return `${head} (record unavailable: ${(err as Error).message})`;
  }
}

/** Options of `log tail`. */
export interface TailOptions {
  from?: string;
  follow?: boolean;
  raw?: boolean;
  session?: string;
}

/**
 * Parses `--from N`.
 * @throws CliError (exit 2)
 * @internal exported for log-tail.spec.ts
 */
export function parseFromOption(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(Number(text)))
    throw new CliError(`--from "${text}" must be a non-negative integer`, 2);
  return Number(text);
}

/**
 * `world log tail`: prints from `--from` (default: the last LOG_TAIL_DEFAULT entries) to the
 * head, or with --follow keeps printing until SIGINT/SIGTERM.
 * @throws GatewayHttpError for a refusal (e.g. 401 without a credential), CliError when unreachable
 */
export async function logTail(
  options: TailOptions,
  env: NodeJS.ProcessEnv,
  io: Output,
): Promise<void> {
  const from = parseFromOption(options.from);
  const client = new GatewayClient(
    gatewayUrl(env),
    await readerToken(options.session, env, warner(io)),
  );
  const reads = new HttpProvenance(client);
  const head = await reads.head();
  const headIndex = head === null ? -1 : entryIndexOf(head);
  const start = from ?? Math.max(0, headIndex - (LOG_TAIL_DEFAULT - 1));
  const print = async (entry: LogEntry) =>
    io.out(options.raw ? JSON.stringify(entry) : await tailLine(entry, reads));
  if (options.follow) {
    await follow(client, start, print, io);
    return;
  }
  let next = start;
  while (next <= headIndex) {
    const page = await reads.entries(next, Math.min(PAGE_MAX, headIndex - next + 1));
    if (page.length === 0) break;
    for (const entry of page) await print(entry);
    next = page[page.length - 1]!.header.entryIndex + 1;
  }
}

/** How one stream run ended. */
type RunEnd = { kind: 'end' } | { kind: 'error'; message: string } | { kind: 'closed' };

/**
 * Follows the live tail from `start` until SIGINT or SIGTERM: each run streams entries (each
 * printed once: an index below the next expected one is skipped), a run that ends on time is
 * resumed at once, a failed or refused one after a backoff doubling up to LOG_TAIL_BACKOFF_MAX_MS.
 * A 4xx answer other than 408/429 ends the command (the credential or the request is wrong).
 */
async function follow(
  client: GatewayClient,
  start: number,
  print: (entry: LogEntry) => Promise<void>,
  io: Output,
  signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM'],
): Promise<void> {
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  for (const s of signals) process.once(s, onSignal);
  let next = start;
  let backoff = LOG_TAIL_BACKOFF_MIN_MS;
  try {
    while (!stop.signal.aborted) {
      let end: RunEnd;
      try {
        end = await streamRun(client, next, stop.signal, async (entry) => {
          const index = entry.header.entryIndex;
          if (index < next) return;
          await print(entry);
          next = index + 1;
          backoff = LOG_TAIL_BACKOFF_MIN_MS;
        });
      } catch (err) {
        if (stop.signal.aborted) break;
        if (
          err instanceof GatewayHttpError &&
          err.status >= 400 &&
          err.status < 500 &&
          err.status !== 408 &&
          err.status !== 429
        )
          throw err;
        end = { kind: 'error', message: (err as Error).message };
      }
      if (stop.signal.aborted) break;
      if (end.kind === 'end') continue;
      io.err(
        `world: log stream ${end.kind === 'error' ? `failed: ${end.message}` : 'closed'}; reconnecting from #${next} in ${backoff} ms`,
      );
      await sleep(backoff, stop.signal);
      backoff = Math.min(backoff * 2, LOG_TAIL_BACKOFF_MAX_MS);
    }
  } finally {
    for (const s of signals) process.off(s, onSignal);
  }
}

/** One run of `GET /v1/log/stream?from=N`, entries handed to `onEntry` in order. */
async function streamRun(
  client: GatewayClient,
  from: number,
  signal: AbortSignal,
  onEntry: (entry: LogEntry) => Promise<void>,
): Promise<RunEnd> {
  const path = `/v1/log/stream?from=${from}`;
  let res: Response;
  try {
    res = await fetch(`${client.baseUrl}${path}`, {
      headers: { ...client.headers(), accept: 'text/event-stream' },
      signal,
    });
  } catch (err) {
    if (signal.aborted) return { kind: 'closed' };
    throw unreachable(client.baseUrl, path, err);
  }
  if (res.status !== 200 || res.body === null) {
    throw httpError(path, {
      status: res.status,
      contentType: res.headers.get('content-type') ?? '',
      text: await res.text(),
    });
  }
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  const decoder = new TextDecoder();
  const reader = res.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { kind: 'closed' };
      parser.feed(decoder.decode(value, { stream: true }));
      while (events.length > 0) {
        const event = events.shift()!;
        if (event.event === 'entry') await onEntry(JSON.parse(event.data) as LogEntry);
        else if (event.event === 'end') return { kind: 'end' };
        else if (event.event === 'error') return { kind: 'error', message: errorText(event.data) };
      }
    }
  } catch (err) {
    if (signal.aborted) return { kind: 'closed' };
    return { kind: 'error', message: (err as Error).message };
  } finally {
    reader.releaseLock();
    await res.body.cancel().catch(() => undefined);
  }
}

function errorText(data: string): string {
  const body = jsonOf(Buffer.from(data, 'utf8')) as
    { error?: { class?: string; message?: string } } | undefined;
  return body?.error === undefined ? data : `${body.error.class}: ${body.error.message}`;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}
