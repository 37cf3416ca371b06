/**
 * The ledger's tables (schema `ledger`; DESIGN.md §3, world-internals §3.1). Every hash column
 * is one text column holding a strict `sha256:` ref; the repositories validate each ref before
 * writing it (world-internals §12 incident 1). Only the ledger reads or writes these tables.
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  check,
  customType,
  index,
  pgSchema,
  primaryKey,
  smallint,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';

/** The Postgres schema the ledger owns. */
export const ledgerSchema = pgSchema('ledger');

/**
 * Raw bytes as a Buffer (what node-postgres hands back; a Uint8Array is wrapped too), so callers
 * see one type.
 */
const bytea = customType<{ data: Buffer; driverData: Uint8Array }>({
  dataType() {
    return 'bytea';
  },
  toDriver(value) {
    return value;
  },
  fromDriver(value) {
    return Buffer.isBuffer(value)
      ? value
      : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  },
});

/** A bigint column read and written as a JS number (indexes and revisions stay below 2^53). */
const int8 = (name: string) => bigint(name, { mode: 'number' });

/** Content-addressed objects: immutable, first provenance wins (world-spec §2.13). */
export const objects = ledgerSchema.table(
  'objects',
  {
    hash: text('hash').primaryKey(),
    interfaceHash: text('interface_hash').notNull(),
    semanticId: text('semantic_id').notNull(),
    provenance: text('provenance').notNull(),
    payload: bytea('payload').notNull(),
  },
  (t) => [index('objects_by_semantic_id').on(t.semanticId, t.hash)],
);

/**
 * The episode a REST entry's `writtenBy` names (`episode:<id>` or `episode:<id>/<label>`, the
 * REST authorship law of commit/rest-authorship.ts), null for every other writer. Computed by
 * PostgreSQL from the hashed header itself, so no write path states it twice.
 */
const WRITER_EPISODE = sql`CASE WHEN written_by LIKE 'episode:%' THEN split_part(substr(written_by, 9), '/', 1) END`;

/**
 * The episode of a tool call's invocation id (`a2a:<episode>:<task>` or `mcp:<episode>:<task>`,
 * contracts `invocationIdOf`), null for REST rows. Computed by PostgreSQL from the id.
 */
const TOOL_EPISODE = sql`CASE WHEN kind = 'tool' THEN split_part(invocation_id, ':', 2) END`;

/** The append-only log: the frozen six-field header plus the body ref (world-spec §2.11). */
export const logEntries = ledgerSchema.table(
  'log_entries',
  {
    entryIndex: int8('entry_index').primaryKey(),
    entryHash: text('entry_hash').notNull().unique('log_entries_entry_hash_unique'),
    semanticsEpoch: int8('semantics_epoch').notNull(),
    transitionFn: text('transition_fn').notNull(),
    interpreter: text('interpreter').notNull(),
    prevEntryHash: text('prev_entry_hash').notNull(),
    writtenBy: text('written_by').notNull(),
    transitionRef: text('transition_ref').notNull(),
    /** who owns a REST entry (reads: reads/ownership.ts) */
    writerEpisode: text('writer_episode').generatedAlwaysAs(WRITER_EPISODE),
  },
  (t) => [
    index('log_entries_by_transition_ref').on(t.transitionRef, t.entryIndex),
    check('log_entries_index_non_negative', sql`${t.entryIndex} >= 0`),
  ],
);

/** Immutable world rows (world-spec §2.12). */
export const worlds = ledgerSchema.table(
  'worlds',
  {
    ref: text('ref').primaryKey(),
    revision: int8('revision').notNull(),
    stateRoot: text('state_root').notNull(),
    logHead: text('log_head').notNull(),
  },
  (t) => [index('worlds_by_state_root').on(t.stateRoot, t.ref)],
);

/** The key of the one head row. */
export const SELECTED_HEAD = 'selected';

/**
 * The one mutable row: the selected world and the log position it stands on. Appends serialize
 * on it (SELECT … FOR UPDATE; DESIGN.md §1).
 */
export const heads = ledgerSchema.table(
  'heads',
  {
    key: text('key').primaryKey(),
    worldRef: text('world_ref').notNull(),
    entryIndex: int8('entry_index').notNull(),
    entryHash: text('entry_hash').notNull(),
    revision: int8('revision').notNull(),
    /**
     * The Merkle tree's compact range at size entry_index + 1: the hashes of tlog borderIds,
     * 32 bytes each, concatenated left to right (null only before the tree was first built)
     */
    treeBorder: bytea('tree_border'),
  },
  (t) => [check('heads_key_selected', sql`${t.key} = 'selected'`)],
);

/** Which commits carried which object: one row per carrying commit (incident 25). */
export const commitObjects = ledgerSchema.table(
  'commit_objects',
  {
    objectRef: text('object_ref')
      .notNull()
      .references(() => objects.hash),
    entryIndex: int8('entry_index')
      .notNull()
      .references(() => logEntries.entryIndex),
  },
  (t) => [primaryKey({ name: 'commit_objects_pk', columns: [t.objectRef, t.entryIndex] })],
);

/** Journal kinds: coordinator tool calls and REST commits (world-internals §5.3). */
export type JournalKind = 'tool' | 'rest';
/** Journal states: a claim, a REST intent, a landed commit, a claim that ended without one. */
export type JournalState = 'claimed' | 'intent' | 'committed' | 'ended';
/** Why a claim ended without a commit. */
export type EndReason = 'lapsed' | 'uncertain' | 'abandoned';

/**
 * The commit journal: one row per invocation id, the source of receipts and of idempotent
 * invocations (world-spec §2.15, world-internals §5.3).
 */
export const commitJournal = ledgerSchema.table(
  'commit_journal',
  {
    invocationId: text('invocation_id').primaryKey(),
    kind: text('kind').$type<JournalKind>().notNull(),
    /** request hash of an idempotent claim (sha256 hex of the canonical tool call) */
    claimHash: text('claim_hash'),
    /** sha256 hex of the canonical commit request */
    commitHash: text('commit_hash'),
    state: text('state').$type<JournalState>().notNull(),
    endReason: text('end_reason').$type<EndReason>(),
    claimExpiresAt: timestamp('claim_expires_at', { withTimezone: true, mode: 'date' }),
    /**
     * the live claim's attempt token (random, minted by each claim and reclaim): a tool commit
     * binds a claimed row only with this token and before claim_expires_at (DESIGN.md §2: a
     * commit given up on never lands later)
     */
    claimToken: text('claim_token'),
    /**
     * the caller id of the planner instance holding the live claim (its liveness subject
     * `planner.alive.<holder>`), so a resend or the waiting gateway can tell a claim whose
     * holder is gone from one still running; null for REST rows and claims of older planners
     */
    claimHolder: text('claim_holder'),
    entryIndex: int8('entry_index'),
    worldRef: text('world_ref'),
    outputRef: text('output_ref'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** the episode whose tool call this row journals (reads: reads/ownership.ts) */
    episodeId: text('episode_id').generatedAlwaysAs(TOOL_EPISODE),
  },
  (t) => [
    index('commit_journal_by_entry_index').on(t.entryIndex),
    check('commit_journal_kind', sql`${t.kind} IN ('tool', 'rest')`),
    check('commit_journal_state', sql`${t.state} IN ('claimed', 'intent', 'committed', 'ended')`),
    check(
      'commit_journal_end_reason',
      sql`(${t.state} = 'ended') = (${t.endReason} IS NOT NULL) AND (${t.endReason} IS NULL OR ${t.endReason} IN ('lapsed', 'uncertain', 'abandoned'))`,
    ),
    check(
      'commit_journal_outcome',
      sql`(${t.state} = 'committed') = (${t.entryIndex} IS NOT NULL AND ${t.worldRef} IS NOT NULL AND ${t.outputRef} IS NOT NULL AND ${t.commitHash} IS NOT NULL)`,
    ),
  ],
);

/** Named registry heads (`world/epoch-registry/v1`, …; world-spec §5.9). */
export const registryHeads = ledgerSchema.table('registry_heads', {
  name: text('name').primaryKey(),
  head: text('head').notNull(),
});

/**
 * The log's RFC 9162 Merkle tree: every perfect subtree (level, node_index) covering
 * leaves [node_index·2^level, (node_index+1)·2^level), written once in the transaction of the
 * entry that completes it (@world/tlog README "Storage model"). Leaf = leafHash(entryBytes).
 */
export const treeNodes = ledgerSchema.table(
  'tree_nodes',
  {
    level: smallint('level').notNull(),
    nodeIndex: int8('node_index').notNull(),
    hash: bytea('hash').notNull(),
  },
  (t) => [
    primaryKey({ name: 'tree_nodes_pk', columns: [t.level, t.nodeIndex] }),
    check('tree_nodes_level', sql`${t.level} BETWEEN 0 AND 63`),
    check('tree_nodes_index_non_negative', sql`${t.nodeIndex} >= 0`),
    check('tree_nodes_hash_size', sql`octet_length(${t.hash}) = 32`),
  ],
);

/**
 * Signed checkpoints (C2SP tlog-checkpoint notes), one per tree size signed: the latest is what
 * `GET /v1/checkpoint` serves and what every later append must extend.
 */
export const checkpoints = ledgerSchema.table('checkpoints', {
  treeSize: int8('tree_size').primaryKey(),
  rootHash: bytea('root_hash').notNull(),
  note: text('note').notNull(),
  signedAt: timestamp('signed_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});
