/**
 * The only code that appends to the log: the commit transaction over objects, log_entries,
 * worlds, commit_objects, heads and commit_journal (DESIGN.md §2 "ledger tx", §3).
 *
 * One commit = BEGIN; one read that locks the head row and joins the invocation's journal row;
 * one statement that writes objects, entry, world, membership, head and journal outcome; COMMIT.
 * The write takes the head it was given rather than re-reading it, so a group commit
 * (commit-group.ts) chains several commits on one locked head, appends each the same way and
 * moves the head with its last append only.
 *
 * Every statement here is raw SQL of fixed text run as a named (prepared) statement through the
 * runtime's raw API: no query building on the commit path (bench/README.md "What the misses are
 * made of": drizzle was 36 % of the ledger's CPU). The objects and memberships of a commit travel
 * as array parameters (unnest), so each append statement has one text whatever the object count
 * and never nears PostgreSQL's bind-parameter cap. The column names follow db/schema.ts.
 */
import { Inject, Injectable } from '@nestjs/common';
import type { LogEntry, Ref, World, WorldObject } from '@world/canonical';
import { DATABASE, type DatabaseHandle, type RawQuery } from '@world/runtime';
import { SELECTED_HEAD, type JournalKind, type JournalState } from '../db/schema.js';
import { assertRefs, storedRef } from '../db/statements.js';
import type { HeadPosition } from './chain.js';

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

/** How a commit writes its journal row, if it has an invocation id. */
export type JournalWrite =
  /** a coordinator commit: insert, or bind a claim whatever its state (DESIGN.md §7.1) */
  | { mode: 'tool'; invocationId: string; commitHash: string }
  /** a REST commit: insert, or bind its own intent (same commit hash) */
  | { mode: 'rest'; invocationId: string; commitHash: string };

/** Everything one commit writes. */
export interface AppendWrite {
  objects: WorldObject[];
  entry: LogEntry;
  world: World;
  journal: JournalWrite | null;
}

/**
 * An int8 column as a JS number: node-postgres hands int8 back as text, PGlite as a number
 * (indexes and revisions stay below 2^53).
 */
function int8(value: unknown): number {
  return Number(value);
}

/** The head row under its lock, joined with the invocation's journal row and its outcome. */
const LOCK_HEAD = {
  name: 'ledger_commit_lock_head',
  text: `SELECT h.world_ref, h.entry_index, h.entry_hash, h.revision,
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

interface LockHeadRow extends HeadRow, JournalRow {}

/** A journal row joined with the entry and world of its outcome (all null without a row). */
interface JournalRow {
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
const JOURNALS = {
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
const READ_HEAD = {
  name: 'ledger_commit_read_head',
  text: `SELECT world_ref, entry_index, entry_hash, revision FROM ledger.heads WHERE key = $1`,
};

interface HeadRow {
  world_ref: string;
  entry_index: unknown;
  entry_hash: string;
  revision: unknown;
}

/** An invocation's journal row under its lock. */
const LOCK_JOURNAL = {
  name: 'ledger_commit_lock_journal',
  text: `SELECT state, commit_hash, world_ref FROM ledger.commit_journal
 WHERE invocation_id = $1 FOR UPDATE`,
};

/** Which of the given refs are stored objects. */
const STORED_OBJECTS = {
  name: 'ledger_commit_stored_objects',
  text: `SELECT hash FROM ledger.objects WHERE hash = ANY($1::text[])`,
};

/** A REST intent, unless the row exists. */
const INSERT_REST_INTENT = {
  name: 'ledger_commit_insert_rest_intent',
  text: `INSERT INTO ledger.commit_journal (invocation_id, kind, commit_hash, state)
VALUES ($1, 'rest', $2, 'intent')
ON CONFLICT DO NOTHING
RETURNING invocation_id`,
};

/** This commit's own REST intent, removed. */
const DROP_REST_INTENT = {
  name: 'ledger_commit_drop_rest_intent',
  text: `DELETE FROM ledger.commit_journal
 WHERE invocation_id = $1 AND state = 'intent' AND commit_hash = $2`,
};

/**
 * The writes of one append but the journal's, as data-modifying CTEs (`WITH o AS (…), …`).
 * Foreign keys are checked at the end of the statement, so memberships may reference the objects
 * and the entry written beside them. Parameters: $1–$5 the objects' hash, interface hash,
 * semantic id, provenance and payload arrays; $6–$13 the entry (index, hash, epoch, transition fn,
 * interpreter, prev hash, written by, transition ref); $14–$17 the world (ref, revision, state
 * root, log head).
 */
const APPEND_WRITES = `WITH o AS (
  INSERT INTO ledger.objects (hash, interface_hash, semantic_id, provenance, payload)
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bytea[])
  ON CONFLICT DO NOTHING
), e AS (
  INSERT INTO ledger.log_entries (entry_index, entry_hash, semantics_epoch, transition_fn,
    interpreter, prev_entry_hash, written_by, transition_ref)
  VALUES ($6, $7, $8, $9, $10, $11, $12, $13)
), w AS (
  INSERT INTO ledger.worlds (ref, revision, state_root, log_head)
  VALUES ($14, $15, $16, $17)
  ON CONFLICT DO NOTHING
), m AS (
  INSERT INTO ledger.commit_objects (object_ref, entry_index)
  SELECT object_ref, $6::bigint FROM unnest($1::text[]) AS carried(object_ref)
)`;

/** The head move: a CTE of every append that moves the head. */
const MOVE_HEAD = `hd AS (
  UPDATE ledger.heads
     SET world_ref = $14, entry_index = $6, entry_hash = $7, revision = $15
   WHERE key = '${SELECTED_HEAD}'
)`;

/**
 * The journal outcome, last statement of an append with an invocation id: insert, or bind the
 * existing row when `bindable` holds. Parameters: $18 the invocation id, $19 the commit hash.
 */
function journalOutcome(kind: JournalKind, bindable: string): string {
  return `INSERT INTO ledger.commit_journal AS j (invocation_id, kind, state, commit_hash,
    end_reason, entry_index, world_ref, output_ref, updated_at)
VALUES ($18, '${kind}', 'committed', $19, NULL, $6::bigint, $14, $16, now())
ON CONFLICT (invocation_id) DO UPDATE
   SET state = 'committed', commit_hash = $19, end_reason = NULL, entry_index = $6::bigint,
       world_ref = $14, output_ref = $16, updated_at = now()
 WHERE ${bindable}
RETURNING j.invocation_id`;
}

/** The last statement of an append, by how it writes its journal row. */
const APPEND_LAST: Record<'none' | JournalWrite['mode'], string> = {
  none: 'SELECT 1',
  tool: journalOutcome('tool', `j.state IN ('claimed', 'ended')`),
  rest: journalOutcome('rest', `j.state = 'intent' AND j.commit_hash = $19`),
};

/** The append statements built so far, by variant. */
const APPEND_STATEMENTS = new Map<string, { name: string; text: string }>();

/**
 * The append statement of one journal mode, with or without the head move (a group commit
 * moves the head once, with its last append). Its text and name are fixed per variant, so
 * PostgreSQL prepares each variant once per connection.
 */
function appendStatement(
  mode: 'none' | JournalWrite['mode'],
  moveHead: boolean,
): { name: string; text: string } {
  const key = `${mode}${moveHead ? '' : '_keep_head'}`;
  let statement = APPEND_STATEMENTS.get(key);
  if (statement === undefined) {
    const ctes = moveHead ? `${APPEND_WRITES}, ${MOVE_HEAD}` : APPEND_WRITES;
    statement = { name: `ledger_commit_append_${key}`, text: `${ctes}\n${APPEND_LAST[mode]}` };
    APPEND_STATEMENTS.set(key, statement);
  }
  return statement;
}

/** The commit transaction's operations; valid only inside `CommitRepository.transaction`. */
export class CommitTx {
  constructor(private readonly query: RawQuery) {}

  /**
   * Locks the head row (SELECT … FOR UPDATE) and reads the invocation's journal row with it.
   * Every append takes this lock first, so appends serialize here (DESIGN.md §1).
   * @throws Error when the head row is missing (genesis runs at start-up, so never in service)
   */
  async lockHead(
    invocationId: string | null,
  ): Promise<{ head: HeadPosition; journal: JournalBinding | null }> {
    const { rows } = await this.query<LockHeadRow>(
      LOCK_HEAD.text,
      [invocationId ?? '', SELECTED_HEAD],
      LOCK_HEAD.name,
    );
    const row = rows[0];
    if (row === undefined)
      throw new Error('ledger head row is missing: genesis was not bootstrapped');
    return { head: headOf(row), journal: bindingOf(row) };
  }

  /**
   * Reads the journal rows of several invocation ids with their outcomes, without locking them
   * (as lockHead reads one: a group commit reads its members' rows under the head lock).
   * @returns invocation id → binding, for the ids that have a row
   */
  async journals(invocationIds: string[]): Promise<Map<string, JournalBinding>> {
    const bindings = new Map<string, JournalBinding>();
    if (invocationIds.length === 0) return bindings;
    const { rows } = await this.query<JournalRow>(JOURNALS.text, [invocationIds], JOURNALS.name);
    for (const row of rows) {
      const binding = bindingOf(row);
      if (row.j_invocation_id !== null && binding !== null)
        bindings.set(row.j_invocation_id, binding);
    }
    return bindings;
  }

  /** Reads the selected head without locking it. */
  async readHead(): Promise<HeadPosition> {
    const { rows } = await this.query<HeadRow>(READ_HEAD.text, [SELECTED_HEAD], READ_HEAD.name);
    const row = rows[0];
    if (row === undefined)
      throw new Error('ledger head row is missing: genesis was not bootstrapped');
    return headOf(row);
  }

  /** Reads and locks an invocation's journal row (REST intents; world-internals §5.3). */
  async lockJournal(
    invocationId: string,
  ): Promise<{ state: JournalState; commitHash: string | null; worldRef: Ref | null } | null> {
    const { rows } = await this.query<{
      state: JournalState;
      commit_hash: string | null;
      world_ref: string | null;
    }>(LOCK_JOURNAL.text, [invocationId], LOCK_JOURNAL.name);
    const row = rows[0];
    if (row === undefined) return null;
    return {
      state: row.state,
      commitHash: row.commit_hash,
      worldRef: row.world_ref === null ? null : storedRef(row.world_ref),
    };
  }

  /** Which of these refs are stored objects. */
  async storedObjects(refs: Ref[]): Promise<Set<string>> {
    if (refs.length === 0) return new Set();
    const { rows } = await this.query<{ hash: string }>(
      STORED_OBJECTS.text,
      [refs],
      STORED_OBJECTS.name,
    );
    return new Set(rows.map((r) => r.hash));
  }

  /**
   * Journals a REST commit's intent (state 'intent'); a row already present is left alone.
   * @returns false when a concurrent sender inserted the row first
   */
  async insertRestIntent(invocationId: string, commitHash: string): Promise<boolean> {
    const { rows } = await this.query(
      INSERT_REST_INTENT.text,
      [invocationId, commitHash],
      INSERT_REST_INTENT.name,
    );
    return rows.length === 1;
  }

  /** Removes a REST intent whose commit was refused under the head lock: it never landed. */
  async dropRestIntent(invocationId: string, commitHash: string): Promise<void> {
    await this.query(DROP_REST_INTENT.text, [invocationId, commitHash], DROP_REST_INTENT.name);
  }

  /**
   * Appends one commit in one statement: objects (ON CONFLICT DO NOTHING: first provenance
   * wins), the entry, the world, one commit_objects row per carried object (incident 25), the
   * head move and the journal outcome (state committed, entry_index, world_ref, output_ref =
   * stateRoot).
   * @param moveHead false to leave the head where it is (a group commit moves it with its last
   *   append only)
   * @returns false when the journal row was not in a state this commit may bind (nothing is
   *   valid then: the caller must roll back)
   * @throws InvalidRefError when any ref about to be written is zero or malformed
   */
  async append(write: AppendWrite, moveHead = true): Promise<boolean> {
    const { entry, world, journal } = write;
    const { header } = entry;
    assertRefs({
      'entry.entryHash': entry.entryHash,
      'entry.transitionRef': entry.transitionRef,
      'entry.header.transitionFn': header.transitionFn,
      'entry.header.interpreter': header.interpreter,
      'entry.header.prevEntryHash': header.prevEntryHash,
      'world.ref': world.ref,
      'world.stateRoot': world.stateRoot,
      'world.logHead': world.logHead,
    });
    write.objects.forEach((o, i) =>
      assertRefs({
        [`objects[${i}].hash`]: o.hash,
        [`objects[${i}].interfaceHash`]: o.interfaceHash,
      }),
    );

    const carried = write.objects;
    const params: unknown[] = [
      carried.map((o) => o.hash),
      carried.map((o) => o.interfaceHash),
      carried.map((o) => o.semanticId),
      carried.map((o) => o.provenance),
      carried.map((o) => o.payload),
      header.entryIndex,
      entry.entryHash,
      header.semanticsEpoch,
      header.transitionFn,
      header.interpreter,
      header.prevEntryHash,
      header.writtenBy,
      entry.transitionRef,
      world.ref,
      world.revision,
      world.stateRoot,
      world.logHead,
    ];
    const statement = appendStatement(journal?.mode ?? 'none', moveHead);
    if (journal === null) {
      await this.query(statement.text, params, statement.name);
      return true;
    }
    params.push(journal.invocationId, journal.commitHash);
    const { rows } = await this.query(statement.text, params, statement.name);
    return rows.length === 1;
  }
}

/** A journal row as a binding, or null when there is none. */
function bindingOf(row: JournalRow): JournalBinding | null {
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

function headOf(row: HeadRow): HeadPosition {
  return {
    worldRef: storedRef(row.world_ref),
    entryIndex: int8(row.entry_index),
    entryHash: storedRef(row.entry_hash),
    revision: int8(row.revision),
  };
}

/** Runs commit transactions on the ledger's database (see CommitTx for what one writes). */
@Injectable()
export class CommitRepository {
  constructor(@Inject(DATABASE) private readonly database: DatabaseHandle) {}

  /**
   * Runs `work` in one transaction on one connection (raw, named statements); it commits when
   * `work` resolves and rolls back when it throws.
   */
  transaction<T>(work: (t: CommitTx) => Promise<T>): Promise<T> {
    return this.database.transaction((query) => work(new CommitTx(query)));
  }
}
