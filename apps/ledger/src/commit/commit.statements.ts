/**
 * The commit repository's own statements (head lock, journal reads, stored-object check, REST
 * intents), the rows they return and what those rows mean; the append statements are in
 * append.statements.ts.
 */
import type { Ref } from '@world/canonical';
import type { JournalKind, JournalState } from '../db/schema.js';
import { storedRef } from '../db/statements.js';
import type { HeadPosition } from './chain.js';

/** The head row under its lock, joined with the invocation's journal row and its outcome. */
export const LOCK_HEAD = {
  name: 'ledger_commit_lock_head',
  text: `SELECT h.world_ref, h.entry_index, h.entry_hash, h.revision, h.tree_border,
       j.invocation_id AS j_invocation_id, j.kind AS j_kind, j.state AS j_state,
       j.commit_hash AS j_commit_hash, j.entry_index AS j_entry_index, j.world_ref AS j_world_ref,
       e.entry_hash AS e_entry_hash, e.prev_entry_hash AS e_prev_entry_hash,
       w.revision AS w_revision
  FROM ledger.heads h
  LEFT JOIN ledger.commit_journal j ON j.invocation_id = $1
  LEFT JOIN ledger.log_entries e ON e.entry_index = j.entry_index
  LEFT JOIN ledger.worlds w ON w.ref = j.world_ref
 WHERE h.key = $2
   FOR UPDATE OF h`,
};

export interface LockHeadRow extends HeadRow, JournalRow {}

/** A journal row joined with the entry and world of its outcome (all null without a row). */
export interface JournalRow {
  j_invocation_id: string | null;
  j_kind: JournalKind | null;
  j_state: JournalState | null;
  j_commit_hash: string | null;
  j_entry_index: unknown;
  j_world_ref: string | null;
  e_entry_hash: string | null;
  e_prev_entry_hash: string | null;
  w_revision: unknown;
}

/** Several invocations' journal rows with the entry and world of their outcomes. */
export const JOURNALS = {
  name: 'ledger_commit_journals',
  text: `SELECT j.invocation_id AS j_invocation_id, j.kind AS j_kind, j.state AS j_state,
       j.commit_hash AS j_commit_hash, j.entry_index AS j_entry_index, j.world_ref AS j_world_ref,
       e.entry_hash AS e_entry_hash, e.prev_entry_hash AS e_prev_entry_hash,
       w.revision AS w_revision
  FROM ledger.commit_journal j
  LEFT JOIN ledger.log_entries e ON e.entry_index = j.entry_index
  LEFT JOIN ledger.worlds w ON w.ref = j.world_ref
 WHERE j.invocation_id = ANY($1::text[])`,
};

/** The head row, unlocked. */
export const READ_HEAD = {
  name: 'ledger_commit_read_head',
  text: `SELECT world_ref, entry_index, entry_hash, revision, tree_border FROM ledger.heads
 WHERE key = $1`,
};

export interface HeadRow {
  world_ref: string;
  entry_index: unknown;
  entry_hash: string;
  revision: unknown;
  tree_border: Uint8Array | null;
}

/** An invocation's journal row under its lock. */
export const LOCK_JOURNAL = {
  name: 'ledger_commit_lock_journal',
  text: `SELECT state, commit_hash, world_ref FROM ledger.commit_journal
 WHERE invocation_id = $1 FOR UPDATE`,
};

/** Which of the given refs are stored objects, with their semantic ids. */
export const STORED_OBJECTS = {
  name: 'ledger_commit_stored_objects',
  text: `SELECT hash, semantic_id FROM ledger.objects WHERE hash = ANY($1::text[])`,
};

/** A REST intent, unless the row exists. */
export const INSERT_REST_INTENT = {
  name: 'ledger_commit_insert_rest_intent',
  text: `INSERT INTO ledger.commit_journal (invocation_id, kind, commit_hash, state)
VALUES ($1, 'rest', $2, 'intent')
ON CONFLICT DO NOTHING
RETURNING invocation_id`,
};

/** This commit's own REST intent, removed. */
export const DROP_REST_INTENT = {
  name: 'ledger_commit_drop_rest_intent',
  text: `DELETE FROM ledger.commit_journal
 WHERE invocation_id = $1 AND state = 'intent' AND commit_hash = $2`,
};

/** What the journal holds for an invocation id, with the entry and world of its outcome. */
export interface JournalBinding {
  kind: JournalKind;
  state: JournalState;
  commitHash: string | null;
  /** present when state is 'committed' */
  outcome: {
    entryIndex: number;
    entryHash: Ref;
    prevEntryHash: Ref;
    worldRef: Ref;
    revision: number;
  } | null;
}

/**
 * An int8 column as a JS number: node-postgres hands int8 back as text
 * (indexes and revisions stay below 2^53).
 */
function int8(value: unknown): number {
  return Number(value);
}

/** A journal row as a binding, or null when there is none. */
export function bindingOf(row: JournalRow): JournalBinding | null {
  if (row.j_invocation_id === null || row.j_kind === null || row.j_state === null) return null;
  const outcome =
    row.j_state === 'committed' &&
    row.j_entry_index !== null &&
    row.j_world_ref !== null &&
    row.e_entry_hash !== null &&
    row.e_prev_entry_hash !== null &&
    row.w_revision !== null
      ? {
          entryIndex: int8(row.j_entry_index),
          entryHash: storedRef(row.e_entry_hash),
          prevEntryHash: storedRef(row.e_prev_entry_hash),
          worldRef: storedRef(row.j_world_ref),
          revision: int8(row.w_revision),
        }
      : null;
  return { kind: row.j_kind, state: row.j_state, commitHash: row.j_commit_hash, outcome };
}

/** The head row's position. */
export function headOf(row: HeadRow): HeadPosition {
  return {
    worldRef: storedRef(row.world_ref),
    entryIndex: int8(row.entry_index),
    entryHash: storedRef(row.entry_hash),
    revision: int8(row.revision),
  };
}
