/**
 * What one log entry was, for the workbench's tables (issue 15 "Timeline"): the entry's header
 * and, when the caller may read them, its invocation record and output. The outcome follows the
 * result shapes of world-spec §4.4: an effect record that denied (with its reason), failed, a
 * refusal (`ok:false` with `refused`, by the plan or the handler), else ok. A REST commit or the
 * genesis entry has no tool call: its outcome is `ok` (it is committed) and its tool is `-`.
 */
import { SEMANTIC_IDS } from '@world/contracts';
import {
  effectStatus,
  INVOCATION_RECORD_IDS,
  jsonOf,
  type LogEntry,
  type Provenance,
} from '@world/why';

/** The outcomes the timeline filters on (issue 15; `unrecorded` is an intent without an entry). */
export const OUTCOMES = ['ok', 'refused', 'denied', 'failed'] as const;
export type Outcome = (typeof OUTCOMES)[number];
/** The surfaces an entry comes in by. */
export const SURFACES = ['mcp', 'a2a', 'rest'] as const;
export type Surface = (typeof SURFACES)[number] | 'genesis';

/** One timeline row. */
export interface Row {
  index: number;
  entryHash: string;
  writtenBy: string;
  surface: Surface;
  /** null when the caller may not read the entry's record (another episode's call) */
  episode: string | null;
  tool: string | null;
  outcome: Outcome | null;
  /** the denial reason or the refusal text */
  reason: string | null;
  invocationId: string | null;
  /** false when the record is not the caller's to read (DESIGN.md §3) */
  visible: boolean;
}

/** The surface of an entry, by who wrote it (DESIGN.md §7.4: `coordinator:<surface>`). */
export function surfaceOf(writtenBy: string, index: number): Surface {
  if (writtenBy === 'coordinator:mcp') return 'mcp';
  if (writtenBy === 'coordinator:a2a') return 'a2a';
  return index === 0 ? 'genesis' : 'rest';
}

interface RecordBody {
  invocationId?: unknown;
  episodeId?: unknown;
  skillId?: unknown;
  output?: unknown;
  effects?: unknown;
}

interface OutputBody {
  ok?: unknown;
  refused?: unknown;
  world?: { effects?: Array<{ status?: unknown; record?: unknown }> };
}

/** The episode a REST entry's writer names (`episode:<id>[/<label>]`), else null. */
function writerEpisode(writtenBy: string): string | null {
  return writtenBy.startsWith('episode:') ? writtenBy.slice(8).split('/')[0]! : null;
}

/**
 * Describes one entry, reading its record, output and effect records in the caller's scope.
 * @throws the reads' errors other than not-found (an unreachable ledger)
 */
export async function describe(reads: Provenance, entry: LogEntry): Promise<Row> {
  const h = entry.header;
  const surface = surfaceOf(h.writtenBy, h.entryIndex);
  const row: Row = {
    index: h.entryIndex,
    entryHash: entry.entryHash,
    writtenBy: h.writtenBy,
    surface,
    episode: writerEpisode(h.writtenBy),
    tool: null,
    outcome: 'ok',
    reason: null,
    invocationId: null,
    visible: true,
  };
  const record = await reads.object(entry.transitionRef);
  if (record === null) {
    row.visible = false;
    row.outcome = null;
    return row;
  }
  if (!INVOCATION_RECORD_IDS.includes(record.semanticId)) return row;
  const body = (jsonOf(record.payload) ?? {}) as RecordBody;
  row.episode = typeof body.episodeId === 'string' ? body.episodeId : null;
  row.tool = typeof body.skillId === 'string' ? body.skillId : null;
  row.invocationId = typeof body.invocationId === 'string' ? body.invocationId : null;
  const output = typeof body.output === 'string' ? await reads.object(body.output) : null;
  const out = (output === null ? undefined : jsonOf(output.payload)) as OutputBody | undefined;
  const effects = out?.world?.effects ?? [];
  for (const e of effects) {
    if (e.status === 'denied' || e.status === 'failed') {
      row.outcome = e.status;
      row.reason = typeof e.record === 'string' ? await denialOf(reads, e.record) : null;
      return row;
    }
  }
  if (out?.ok === false) {
    row.outcome = 'refused';
    row.reason = typeof out.refused === 'string' ? out.refused : null;
  }
  return row;
}

/** The denial reason an effect record states (world-spec §2.8), or null. */
async function denialOf(reads: Provenance, ref: string): Promise<string | null> {
  const object = await reads.object(ref);
  if (object === null || object.semanticId !== SEMANTIC_IDS.effectRecord) return null;
  const record = jsonOf(object.payload) as
    { allowed?: unknown; failed?: unknown; denial?: unknown } | undefined;
  if (record === undefined) return null;
  if (effectStatus(record) === 'denied' && typeof record.denial === 'string') return record.denial;
  return null;
}
