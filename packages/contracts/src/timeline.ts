/**
 * The ledger's timeline index reads (the workbench's Timeline, DESIGN.md §5a): `ledger.timeline`
 * pages the log newest first by cursor, filtered by episode, tool, outcome, surface and commit
 * time, from the index the ledger writes in each entry's own transaction;
 * `ledger.timeline.unrecorded` pages the tool calls that were claimed but never committed (the
 * `unrecorded` outcome: an intent without an entry).
 */
import { z } from 'zod';
import { EpisodeIdSchema, NonNegInt, RefSchema } from './schemas.js';
import { ReadScopeSchema } from './visibility.js';

/** Most rows one timeline read answers: one workbench page (DESIGN.md §5a). */
export const TIMELINE_LIMIT_MAX = 100;
/** The outcomes of a committed entry (world-spec §4.4 result shapes). */
export const ENTRY_OUTCOMES = ['ok', 'refused', 'denied', 'failed'] as const;
/** The surfaces an entry comes in by (`genesis` for entry 0). */
const ENTRY_SURFACES = ['mcp', 'a2a', 'rest', 'genesis'] as const;

/** A filter value: a name of at most 128 characters (episode ids, tool names). */
const FilterName = z.string().regex(/^[A-Za-z0-9._:/-]{1,128}$/);
/** An instant as ISO 8601 with a zone (what `new Date().toISOString()` prints). */
const Instant = z.iso.datetime({ offset: true });
const Limit = z.number().int().min(1).max(TIMELINE_LIMIT_MAX);

export const LedgerTimelineRequest = z.object({
  scope: ReadScopeSchema,
  /** rows with entry index below this (the cursor); absent: from the head */
  before: NonNegInt.optional(),
  limit: Limit,
  episode: EpisodeIdSchema.optional(),
  tool: FilterName.optional(),
  outcome: z.enum(ENTRY_OUTCOMES).optional(),
  surface: z.enum(ENTRY_SURFACES).optional(),
  /** committed at or after */
  since: Instant.optional(),
  /** committed before */
  until: Instant.optional(),
});

/** One indexed entry; episode, tool, outcome, reason and invocation id are null when hidden. */
const TimelineRowSchema = z.object({
  entryIndex: NonNegInt,
  entryHash: RefSchema,
  /** ISO 8601 UTC; null for an entry backfilled without a journal row (time unknown) */
  committedAt: z.string().nullable(),
  surface: z.enum(ENTRY_SURFACES),
  /** false when the entry's record is another episode's (DESIGN.md §3) */
  visible: z.boolean(),
  episodeId: z.string().nullable(),
  tool: z.string().nullable(),
  outcome: z.enum(ENTRY_OUTCOMES).nullable(),
  reason: z.string().nullable(),
  invocationId: z.string().nullable(),
});
export type TimelineRow = z.infer<typeof TimelineRowSchema>;

export const LedgerTimelineReply = z.object({
  items: z.array(TimelineRowSchema),
  /** the cursor of the next (older) page; null when no older row matches */
  next: NonNegInt.nullable(),
});

/** The keyset cursor of the unrecorded listing: `<created_at as PostgreSQL prints it>|<id>`. */
const UnrecordedCursor = z.string().regex(/^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:.]+\+00\|[^|]{1,300}$/);

export const LedgerUnrecordedRequest = z.object({
  scope: ReadScopeSchema,
  before: UnrecordedCursor.optional(),
  limit: Limit,
  episode: EpisodeIdSchema.optional(),
  since: Instant.optional(),
  until: Instant.optional(),
});

/** A tool call claimed and never committed: its journal row. */
const UnrecordedRowSchema = z.object({
  invocationId: z.string(),
  episodeId: z.string().nullable(),
  state: z.enum(['claimed', 'ended']),
  endReason: z.string().nullable(),
  claimedAt: z.string(),
  updatedAt: z.string(),
});
export type UnrecordedRow = z.infer<typeof UnrecordedRowSchema>;

export const LedgerUnrecordedReply = z.object({
  items: z.array(UnrecordedRowSchema),
  next: UnrecordedCursor.nullable(),
});

/** Most minutes one rate read covers. */
const TIMELINE_RATE_MINUTES_MAX = 180;

export const LedgerTimelineRateRequest = z.object({
  scope: ReadScopeSchema,
  /** the minutes before now to count (the current minute included) */
  minutes: z.number().int().min(1).max(TIMELINE_RATE_MINUTES_MAX),
});

/** Committed entries of one minute and one outcome (`hidden`: another episode's, to a session). */
const TimelineRateRowSchema = z.object({
  /** the minute's start, ISO 8601 UTC */
  minute: z.string(),
  outcome: z.enum([...ENTRY_OUTCOMES, 'hidden']),
  entries: NonNegInt,
});
export type TimelineRateRow = z.infer<typeof TimelineRateRowSchema>;

export const LedgerTimelineRateReply = z.object({
  /** the database's now, ISO 8601 UTC */
  now: z.string(),
  items: z.array(TimelineRateRowSchema),
});
