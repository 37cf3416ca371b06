/**
 * The one builder of the append statements and their parameters: every way a commit is written
 * — inside the commit transaction (lone, group and REST: `CommitTx.append`, then TREE_EXTEND once
 * per transaction) and in one autocommit statement on an expected head (`appendOnHead`, the
 * one-statement commit of a lone tool call) — is the same writes, built here from one set of
 * CTEs: objects, entry, world, memberships, head move, tree nodes and journal outcome. Pure: no
 * I/O. The column names follow db/schema.ts.
 *
 * Every statement is fixed text run as a named (prepared) statement: no query building on the
 * commit path (bench/README.md: drizzle was 36 % of the ledger's CPU). Objects and memberships
 * travel as array parameters (unnest), so one text serves any object count and never nears
 * PostgreSQL's bind-parameter cap. Parameters are named (APPEND_PARAMS); a variant sends the
 * leading ones it uses.
 */
import type { TreeState } from '@world/tlog';
import { SELECTED_HEAD, type JournalKind } from '../db/schema.js';
import {
  Params,
  assertRefs,
  insertObjects,
  insertTreeNodes,
  joined,
  objectColumns,
  type NamedStatement,
} from '../db/statements.js';
import type { AppendWrite, HeadPosition, JournalWrite, ToolAppendWrite } from './chain.js';
import { encodeBorder, type TreeExtension } from './tree.js';

/**
 * The parameters of every append, in placeholder order: the objects' five arrays, the entry,
 * the world, the journal row (a journaled commit), the claim token (a tool commit), then only
 * for the one-statement append the head it expects and the tree it writes.
 */
const APPEND_PARAMS = new Params([
  ['objectHashes', 'text[]'],
  ['interfaceHashes', 'text[]'],
  ['semanticIds', 'text[]'],
  ['provenances', 'text[]'],
  ['payloads', 'bytea[]'],
  ['entryIndex', 'bigint'],
  ['entryHash', 'text'],
  ['semanticsEpoch', 'bigint'],
  ['transitionFn', 'text'],
  ['interpreter', 'text'],
  ['prevEntryHash', 'text'],
  ['writtenBy', 'text'],
  ['transitionRef', 'text'],
  ['worldRef', 'text'],
  ['revision', 'bigint'],
  ['stateRoot', 'text'],
  ['logHead', 'text'],
  ['invocationId', 'text'],
  ['commitHash', 'text'],
  ['claimToken', 'text'],
  ['expectedIndex', 'bigint'],
  ['expectedHash', 'text'],
  ['expectedRevision', 'bigint'],
  ['treeBefore', 'bytea'],
  ['treeLevels', 'smallint[]'],
  ['treeIndexes', 'bigint[]'],
  ['treeHashes', 'bytea[]'],
  ['treeBorder', 'bytea'],
] as const);
type AppendParam = Parameters<typeof APPEND_PARAMS.$>[0];
const $ = (name: AppendParam) => APPEND_PARAMS.$(name);

/** `FROM hd` when the writes are gated on the head move, else nothing. */
const from = (gate: string | undefined) => (gate === undefined ? '' : ` FROM ${gate}`);

/**
 * The writes of one append but the head's and the journal's, as data-modifying CTEs. Foreign
 * keys are checked at the end of the statement, so memberships may reference the objects and
 * the entry written beside them.
 * @param gate `hd` to write only when the head move returned a row (the one-statement append)
 */
function appendWrites(gate?: string): string[] {
  return [
    `o AS (
  ${insertObjects(
    {
      hashes: $('objectHashes'),
      interfaceHashes: $('interfaceHashes'),
      semanticIds: $('semanticIds'),
      provenances: $('provenances'),
      payloads: $('payloads'),
    },
    gate,
  )}
)`,
    `e AS (
  INSERT INTO ledger.log_entries (entry_index, entry_hash, semantics_epoch, transition_fn,
    interpreter, prev_entry_hash, written_by, transition_ref)
  SELECT ${$('entryIndex')}, ${$('entryHash')}, ${$('semanticsEpoch')}, ${$('transitionFn')},
    ${$('interpreter')}, ${$('prevEntryHash')}, ${$('writtenBy')},
    ${$('transitionRef')}${from(gate)}
)`,
    `w AS (
  INSERT INTO ledger.worlds (ref, revision, state_root, log_head)
  SELECT ${$('worldRef')}, ${$('revision')}, ${$('stateRoot')}, ${$('logHead')}${from(gate)}
  ON CONFLICT DO NOTHING
)`,
    `m AS (
  INSERT INTO ledger.commit_objects (object_ref, entry_index)
  SELECT carried.object_ref, ${$('entryIndex')}
    FROM ${joined(gate)}unnest(${$('objectHashes')}) AS carried(object_ref)
)`,
  ];
}

/** The head's new position: the appended entry and its world. */
const HEAD_MOVE = `world_ref = ${$('worldRef')}, entry_index = ${$('entryIndex')},
         entry_hash = ${$('entryHash')}, revision = ${$('revision')}`;

/**
 * When a tool commit may bind an existing journal row (`j` the row): only the claim it was made
 * under, still held (not ended, not reclaimed by a resend: same token) and live by the
 * database's clock at the moment the row is locked (clock_timestamp(), not the transaction's
 * start). A claim the planner gave up on (`ledger.invocation.end`) or that lapsed therefore
 * never commits later: the late statement binds nothing and is rolled back (DESIGN.md §2;
 * world-internals §5.5, §12 #24). A commit without a token (a call without a claim) binds no
 * existing row. Null-safe: false, never null.
 */
function toolBindable(j: string): string {
  return `coalesce(${j}.state = 'claimed' AND ${j}.claim_token = ${$('claimToken')}
    AND ${j}.claim_expires_at > clock_timestamp(), false)`;
}

/** When a REST commit may bind an existing journal row: its own intent (same commit hash). */
const restBindable = (j: string) =>
  `${j}.state = 'intent' AND ${j}.commit_hash = ${$('commitHash')}`;

/**
 * The journal outcome of an append with an invocation id: insert the row committed, or bind the
 * existing one when `bindable` holds. Returns the row's id when it was written.
 */
function journalOutcome(kind: JournalKind, gate?: string): string {
  const bindable = kind === 'tool' ? toolBindable('j') : restBindable('j');
  return `INSERT INTO ledger.commit_journal AS j (invocation_id, kind, state, commit_hash,
    end_reason, entry_index, world_ref, output_ref, updated_at)
  SELECT ${$('invocationId')}, '${kind}', 'committed', ${$('commitHash')}, NULL,
    ${$('entryIndex')}, ${$('worldRef')}, ${$('stateRoot')}, now()${from(gate)}
  ON CONFLICT (invocation_id) DO UPDATE
     SET state = 'committed', commit_hash = ${$('commitHash')}, end_reason = NULL,
         entry_index = ${$('entryIndex')}, world_ref = ${$('worldRef')},
         output_ref = ${$('stateRoot')}, updated_at = now()
   WHERE ${bindable}
  RETURNING j.invocation_id`;
}

/** A built append statement and how many leading parameters it takes. */
export interface AppendStatement extends NamedStatement {
  params: number;
}

/** An append statement of this text, taking the leading parameters it names. */
function built(name: string, text: string): AppendStatement {
  return { name, text, params: APPEND_PARAMS.countIn(text) };
}

/** The transaction's append statements built so far, by variant. */
const APPEND_STATEMENTS = new Map<string, AppendStatement>();

/**
 * The append statement of the commit transaction for one journal mode, with or without the head
 * move (a group commit moves the head once, with its last append). Its text and name are fixed
 * per variant, so PostgreSQL prepares each variant once per connection. It runs after the head
 * row was locked (CommitTx.lockHead); it returns the journal row's id when a journaled commit
 * bound it (nothing: the caller rolls back), one row `1` without a journal.
 */
export function appendStatement(
  mode: 'none' | JournalWrite['mode'],
  moveHead: boolean,
): AppendStatement {
  const key = `${mode}${moveHead ? '' : '_keep_head'}`;
  let statement = APPEND_STATEMENTS.get(key);
  if (statement === undefined) {
    const ctes = appendWrites();
    if (moveHead)
      ctes.push(`hd AS (
  UPDATE ledger.heads SET ${HEAD_MOVE} WHERE key = '${SELECTED_HEAD}'
)`);
    const last = mode === 'none' ? 'SELECT 1' : journalOutcome(mode);
    statement = built(`ledger_commit_append_${key}`, `WITH ${ctes.join(', ')}\n${last}`);
    APPEND_STATEMENTS.set(key, statement);
  }
  return statement;
}

/**
 * A tool commit appended in ONE autocommit statement on the head the caller expects (the
 * one-statement commit of a lone `ledger.commit`): all of it is written, or none of it.
 *
 * - `hd`, the head move, is the only write that reads the database before writing: it moves the
 *   head (and its tree border) only when the head row still stands exactly on the expected entry
 *   (index, hash, revision — everything chainToolCommit took from it — and the border the tree
 *   extension was computed from) and the invocation has no journal row this commit could not
 *   bind (committed, a REST intent, or a claim not its own live one: toolBindable). A concurrent
 *   append holds the head row's lock; READ COMMITTED makes `hd` wait for it, then re-check its
 *   WHERE against the new row version, which no longer matches: nothing is updated.
 * - Every other write selects `FROM hd`, so it writes its rows only when `hd` returned one.
 *   Data-modifying CTEs all run whether referenced or not and all see one snapshot: the gating
 *   has to be explicit, and it is on every one of them.
 * - The journal outcome may still fail to bind once the head moved: a row changed after the
 *   statement's snapshot (a claim ended by `ledger.invocation.end`, reclaimed, or lapsing
 *   meanwhile) is re-checked when `jo` locks it. Then the last line divides by the number of
 *   journal rows bound: 0 raises division_by_zero (JOURNAL_GUARD_SQLSTATE), which aborts the
 *   statement, so nothing of it is written, and the caller falls back to the transaction, which
 *   refuses it.
 *
 * Returns one row (the new entry index) when the commit landed, none when nothing was written.
 */
export const APPEND_ON_HEAD = built(
  'ledger_commit_append_on_head',
  `WITH hd AS (
  UPDATE ledger.heads
     SET ${HEAD_MOVE}, tree_border = ${$('treeBorder')}
   WHERE key = '${SELECTED_HEAD}'
     AND entry_index = ${$('expectedIndex')} AND entry_hash = ${$('expectedHash')}
     AND revision = ${$('expectedRevision')} AND tree_border = ${$('treeBefore')}
     AND NOT EXISTS (
       SELECT 1 FROM ledger.commit_journal cj
        WHERE cj.invocation_id = ${$('invocationId')} AND NOT ${toolBindable('cj')})
  RETURNING entry_index
), ${appendWrites('hd').join(', ')}, tn AS (
  ${insertTreeNodes(
    { levels: $('treeLevels'), indexes: $('treeIndexes'), hashes: $('treeHashes') },
    'hd',
  )}
), jo AS (
  ${journalOutcome('tool', 'hd')}
)
SELECT hd.entry_index / (SELECT count(*) FROM jo) AS entry_index FROM hd`,
);

/** PostgreSQL's SQLSTATE for division_by_zero: APPEND_ON_HEAD's journal guard fired. */
export const JOURNAL_GUARD_SQLSTATE = '22012';

/**
 * The values of an append's parameters by name: objects, entry, world and journal row, every
 * ref about to be persisted validated first (world-internals §12 incident 1: a zero or malformed
 * ref is never written).
 * @throws InvalidRefError naming the field (`entry.header.transitionFn`, `objects[i].hash`, …)
 */
function writeValues(write: AppendWrite): Partial<Record<AppendParam, unknown>> {
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
  const objects = objectColumns(write.objects);
  return {
    objectHashes: objects.hashes,
    interfaceHashes: objects.interfaceHashes,
    semanticIds: objects.semanticIds,
    provenances: objects.provenances,
    payloads: objects.payloads,
    entryIndex: header.entryIndex,
    entryHash: entry.entryHash,
    semanticsEpoch: header.semanticsEpoch,
    transitionFn: header.transitionFn,
    interpreter: header.interpreter,
    prevEntryHash: header.prevEntryHash,
    writtenBy: header.writtenBy,
    transitionRef: entry.transitionRef,
    worldRef: world.ref,
    revision: world.revision,
    stateRoot: world.stateRoot,
    logHead: world.logHead,
    ...(journal !== null && { invocationId: journal.invocationId, commitHash: journal.commitHash }),
    ...(journal?.mode === 'tool' && { claimToken: journal.claimToken }),
  };
}

/**
 * The parameters of an append statement of the commit transaction (appendStatement).
 * @throws InvalidRefError as writeValues
 */
export function appendParams(statement: AppendStatement, write: AppendWrite): unknown[] {
  return APPEND_PARAMS.values(writeValues(write), statement.params);
}

/**
 * The parameters of APPEND_ON_HEAD: the append's, the expected head, then the tree: the head's
 * border before (as stored) and the extension by this one entry.
 * @throws InvalidRefError as writeValues
 */
export function appendOnHeadParams(
  expected: HeadPosition,
  write: ToolAppendWrite,
  tree: { before: TreeState; extension: TreeExtension },
): unknown[] {
  return APPEND_PARAMS.values({
    ...writeValues(write),
    expectedIndex: expected.entryIndex,
    expectedHash: expected.entryHash,
    expectedRevision: expected.revision,
    treeBefore: encodeBorder(tree.before),
    treeLevels: tree.extension.levels,
    treeIndexes: tree.extension.indexes,
    treeHashes: tree.extension.hashes,
    treeBorder: tree.extension.border,
  });
}

/** The parameters of TREE_EXTEND. */
const TREE_PARAMS = new Params([
  ['levels', 'smallint[]'],
  ['indexes', 'bigint[]'],
  ['hashes', 'bytea[]'],
  ['border', 'bytea'],
  ['headIndex', 'bigint'],
  ['borderBefore', 'bytea'],
] as const);

/**
 * The tree update of a commit transaction, once per transaction after its appends (the head has
 * already moved to the last appended entry): the new nodes, and the head's border — only if the
 * head stands on the last appended entry and still holds the border the extension was computed
 * from. Returns one row when it wrote, none otherwise (the caller rolls back).
 */
export const TREE_EXTEND: NamedStatement = {
  name: 'ledger_tree_extend',
  text: `WITH t AS (
  ${insertTreeNodes({
    levels: TREE_PARAMS.$('levels'),
    indexes: TREE_PARAMS.$('indexes'),
    hashes: TREE_PARAMS.$('hashes'),
  })}
)
UPDATE ledger.heads SET tree_border = ${TREE_PARAMS.$('border')}
 WHERE key = '${SELECTED_HEAD}' AND entry_index = ${TREE_PARAMS.$('headIndex')}
   AND tree_border = ${TREE_PARAMS.$('borderBefore')}
RETURNING key`,
};

/** The parameters of TREE_EXTEND for `extension` of the tree `before`. */
export function treeExtendParams(before: TreeState, extension: TreeExtension): unknown[] {
  return TREE_PARAMS.values({
    levels: extension.levels,
    indexes: extension.indexes,
    hashes: extension.hashes,
    border: extension.border,
    headIndex: extension.state.size - 1,
    borderBefore: encodeBorder(before),
  });
}
