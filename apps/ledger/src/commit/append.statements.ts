/**
 * The SQL of an append and its parameter layout, written once: the append of the commit
 * transaction (commit.repository.ts `CommitTx.append`) and the one-statement append on an
 * expected head (`CommitRepository.appendOnHead`, the fast path of a lone tool commit). Pure: no
 * I/O. The column names follow db/schema.ts.
 *
 * Every statement is fixed text run as a named (prepared) statement: no query building on the
 * commit path (bench/README.md: drizzle was 36 % of the ledger's CPU). Objects and memberships
 * travel as array parameters (unnest), so one text serves any object count and never nears
 * PostgreSQL's bind-parameter cap.
 *
 * Parameters of every append: $1–$5 the objects' hash, interface hash, semantic id, provenance
 * and payload arrays; $6–$13 the entry (index, hash, epoch, transition fn, interpreter, prev hash,
 * written by, transition ref); $14–$17 the world (ref, revision, state root, log head); then $18
 * the invocation id and $19 the commit hash when the commit is journaled, and $20 the claim token
 * of a tool commit.
 */
import type { LogEntry, World, WorldObject } from '@world/canonical';
import { SELECTED_HEAD, type JournalKind } from '../db/schema.js';
import { assertRefs } from '../db/statements.js';
import type { HeadPosition } from './chain.js';
import type { TreeExtension } from './tree.js';

/** How a commit writes its journal row, if it has an invocation id. */
export type JournalWrite =
  /**
   * a coordinator commit: insert, or bind its own live claim (toolBindable; DESIGN.md §2).
   * `claimToken` is the token its claim answered; null for a call without a claim.
   */
  | { mode: 'tool'; invocationId: string; commitHash: string; claimToken: string | null }
  /** a REST commit: insert, or bind its own intent (same commit hash) */
  | { mode: 'rest'; invocationId: string; commitHash: string };

/** Everything one commit writes. */
export interface AppendWrite {
  objects: WorldObject[];
  entry: LogEntry;
  world: World;
  journal: JournalWrite | null;
}

/** A tool commit's write: journaled as a coordinator call. */
export type ToolAppendWrite = AppendWrite & { journal: Extract<JournalWrite, { mode: 'tool' }> };

/** A named statement: PostgreSQL prepares it once per connection. */
export interface NamedStatement {
  name: string;
  text: string;
}

/**
 * The writes of one append but the journal's, as data-modifying CTEs (`WITH o AS (…), …`).
 * Foreign keys are checked at the end of the statement, so memberships may reference the objects
 * and the entry written beside them.
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
 * When a tool commit may bind an existing journal row (`j` the row, `token` the commit's claim
 * token parameter): only the claim it was made under, still held (not ended, not reclaimed by a
 * resend: same token) and live by the database's clock at the moment the row is locked
 * (clock_timestamp(), not the transaction's start). A claim the planner gave up on
 * (`ledger.invocation.end`) or that lapsed therefore never commits later: the late statement
 * binds nothing and is rolled back (DESIGN.md §2; world-internals §5.5, §12 #24). A commit
 * without a token (a call without a claim) binds no existing row. Null-safe: false, never null.
 */
function toolBindable(j: string, token: string): string {
  return `coalesce(${j}.state = 'claimed' AND ${j}.claim_token = ${token}::text
    AND ${j}.claim_expires_at > clock_timestamp(), false)`;
}

/**
 * The journal outcome, last statement of an append with an invocation id: insert, or bind the
 * existing row when `bindable` holds.
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
  tool: journalOutcome('tool', toolBindable('j', '$20')),
  rest: journalOutcome('rest', `j.state = 'intent' AND j.commit_hash = $19`),
};

/** The append statements built so far, by variant. */
const APPEND_STATEMENTS = new Map<string, NamedStatement>();

/**
 * The append statement of one journal mode, with or without the head move (a group commit
 * moves the head once, with its last append). Its text and name are fixed per variant, so
 * PostgreSQL prepares each variant once per connection. It runs inside the commit transaction,
 * after the head row was locked (CommitTx.lockHead).
 */
export function appendStatement(
  mode: 'none' | JournalWrite['mode'],
  moveHead: boolean,
): NamedStatement {
  const key = `${mode}${moveHead ? '' : '_keep_head'}`;
  let statement = APPEND_STATEMENTS.get(key);
  if (statement === undefined) {
    const ctes = moveHead ? `${APPEND_WRITES}, ${MOVE_HEAD}` : APPEND_WRITES;
    statement = { name: `ledger_commit_append_${key}`, text: `${ctes}\n${APPEND_LAST[mode]}` };
    APPEND_STATEMENTS.set(key, statement);
  }
  return statement;
}

/**
 * The tree rows of APPEND_ON_HEAD (commit/tree.ts extendTree), gated on `hd` like every other
 * write: $25–$27 the new nodes' levels, indexes and hashes. `hd` itself moves the head's border
 * from $24 (the border the extension was computed from, or nothing is written) to $28.
 */
const TREE_ON_HEAD_CTE = `tn AS (
  INSERT INTO ledger.tree_nodes (level, node_index, hash)
  SELECT u.level, u.node_index, u.hash
    FROM hd, unnest($25::smallint[], $26::bigint[], $27::bytea[]) AS u(level, node_index, hash)
)`;

/**
 * A tool commit appended in ONE autocommit statement on the head the caller expects (the fast
 * path of a lone `ledger.commit`, commit-fast.ts): all of it is written, or none of it.
 *
 * - `hd`, the head move, is the only write that reads the database before writing: it moves the
 *   head only when the head row still stands exactly on the expected entry (index $20, hash $21,
 *   revision $22 — everything chainToolCommit took from it) and the invocation has no journal
 *   row this commit could not bind (committed, a REST intent, or a claim not its own live
 *   one: toolBindable). A concurrent append holds
 *   the head row's lock; READ COMMITTED makes `hd` wait for it, then re-check its WHERE against
 *   the new row version, which no longer matches: nothing is updated.
 * - Every other write selects `FROM hd`, so it writes its rows only when `hd` returned one.
 *   Data-modifying CTEs all run whether referenced or not and all see one snapshot: the gating
 *   has to be explicit, and it is on every one of them.
 * - The journal outcome may still fail to bind once the head moved: a row changed after the
 *   statement's snapshot (a claim ended by `ledger.invocation.end`, reclaimed, or lapsing
 *   meanwhile) is re-checked when `jo` locks it. Then the last line divides by the number of
 *   journal rows bound: 0 raises division_by_zero (SQLSTATE 22012), which aborts the statement,
 *   so nothing of it is written, and the caller falls back to the transaction, which refuses it.
 *
 * Parameters: those of every append (file doc) with the journal's $18–$19, then $20–$22 the
 * expected head's entry index, entry hash and revision, $23 the claim token, then $24–$28 the
 * tree (TREE_ON_HEAD_CTE). Returns one row (the new entry index)
 * when the commit landed, none when nothing was written.
 */
export const APPEND_ON_HEAD: NamedStatement = {
  name: 'ledger_commit_append_on_head',
  text: `WITH hd AS (
  UPDATE ledger.heads
     SET world_ref = $14::text, entry_index = $6::bigint, entry_hash = $7::text,
         revision = $15::bigint, tree_border = $28::bytea
   WHERE key = '${SELECTED_HEAD}'
     AND entry_index = $20::bigint AND entry_hash = $21::text AND revision = $22::bigint
     AND tree_border = $24::bytea
     AND NOT EXISTS (
       SELECT 1 FROM ledger.commit_journal cj
        WHERE cj.invocation_id = $18::text AND NOT ${toolBindable('cj', '$23')})
  RETURNING entry_index
), o AS (
  INSERT INTO ledger.objects (hash, interface_hash, semantic_id, provenance, payload)
  SELECT u.hash, u.interface_hash, u.semantic_id, u.provenance, u.payload
    FROM hd, unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bytea[])
      AS u(hash, interface_hash, semantic_id, provenance, payload)
  ON CONFLICT DO NOTHING
), e AS (
  INSERT INTO ledger.log_entries (entry_index, entry_hash, semantics_epoch, transition_fn,
    interpreter, prev_entry_hash, written_by, transition_ref)
  SELECT $6::bigint, $7::text, $8::bigint, $9::text, $10::text, $11::text, $12::text, $13::text
    FROM hd
), w AS (
  INSERT INTO ledger.worlds (ref, revision, state_root, log_head)
  SELECT $14::text, $15::bigint, $16::text, $17::text FROM hd
  ON CONFLICT DO NOTHING
), m AS (
  INSERT INTO ledger.commit_objects (object_ref, entry_index)
  SELECT carried.object_ref, $6::bigint FROM hd, unnest($1::text[]) AS carried(object_ref)
), ${TREE_ON_HEAD_CTE}, jo AS (
  INSERT INTO ledger.commit_journal AS j (invocation_id, kind, state, commit_hash,
    end_reason, entry_index, world_ref, output_ref, updated_at)
  SELECT $18::text, 'tool', 'committed', $19::text, NULL, $6::bigint, $14::text, $16::text, now()
    FROM hd
  ON CONFLICT (invocation_id) DO UPDATE
     SET state = 'committed', commit_hash = $19::text, end_reason = NULL,
         entry_index = $6::bigint, world_ref = $14::text, output_ref = $16::text,
         updated_at = now()
   WHERE ${toolBindable('j', '$23')}
  RETURNING j.invocation_id
)
SELECT hd.entry_index / (SELECT count(*) FROM jo) AS entry_index FROM hd`,
};

/** PostgreSQL's SQLSTATE for division_by_zero: APPEND_ON_HEAD's journal guard fired. */
export const JOURNAL_GUARD_SQLSTATE = '22012';

/**
 * Validates every ref an append is about to persist (world-internals §12 incident 1: a zero or
 * malformed ref is never written) and lays out its parameters $1–$17 (file doc).
 * @throws InvalidRefError naming the field (`entry.header.transitionFn`, `objects[i].hash`, …)
 */
export function appendParams(write: AppendWrite): unknown[] {
  const { entry, world } = write;
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
  return [
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
}

/**
 * The parameters of APPEND_ON_HEAD: the append's, the journal's, the expected head, then the
 * tree: the head's border before (as stored) and the extension by this one entry.
 * @throws InvalidRefError as appendParams
 */
export function appendOnHeadParams(
  expected: HeadPosition,
  write: ToolAppendWrite,
  tree: { before: Buffer; extension: TreeExtension },
): unknown[] {
  return [
    ...appendParams(write),
    write.journal.invocationId,
    write.journal.commitHash,
    expected.entryIndex,
    expected.entryHash,
    expected.revision,
    write.journal.claimToken,
    tree.before,
    tree.extension.levels,
    tree.extension.indexes,
    tree.extension.hashes,
    tree.extension.border,
  ];
}
