/**
 * The only code that appends to the log: the commit transaction over objects, log_entries,
 * worlds, commit_objects, heads, tree_nodes and commit_journal (DESIGN.md §2 "ledger tx", §3),
 * and the one-statement append of a lone tool commit on the head this replica last saw.
 *
 * One commit = BEGIN; one read that locks the head row and joins the invocation's journal row;
 * one statement that writes objects, entry, world, membership, head and journal outcome; the
 * tree's extension; COMMIT. The write takes the head it was given rather than re-reading it, so
 * a group commit chains several commits on one locked head, appends each the same way and moves
 * the head with its last append only. A lone tool commit may instead be one autocommit statement
 * guarded by the expected head (appendOnHead). Every statement is built in append.statements.ts
 * or commit.statements.ts and run as a named (prepared) statement through the runtime's raw API.
 */
import { Inject, Injectable, Optional } from '@nestjs/common';
import type { LogEntry, Ref } from '@world/canonical';
import { TreeStateError, type TreeState } from '@world/tlog';
import { DATABASE, serviceLogger, type DatabaseHandle, type RawQuery } from '@world/runtime';
import { LEDGER_SERVICE } from '../constants.js';
import { SELECTED_HEAD, type JournalState } from '../db/schema.js';
import { storedRef } from '../db/statements.js';
import {
  APPEND_ON_HEAD,
  JOURNAL_GUARD_SQLSTATE,
  TREE_EXTEND,
  appendOnHeadParams,
  appendParams,
  appendStatement,
  treeExtendParams,
} from './append.statements.js';
import {
  LOCK_HEAD,
  JOURNALS,
  READ_HEAD,
  LOCK_JOURNAL,
  STORED_OBJECTS,
  INSERT_REST_INTENT,
  DROP_REST_INTENT,
  bindingOf,
  headOf,
  type LockHeadRow,
  type JournalBinding,
  type JournalRow,
  type HeadRow,
} from './commit.statements.js';
import { headAfter, type AppendWrite, type HeadPosition, type ToolAppendWrite } from './chain.js';
import { LastHead } from './last-head.js';
import { TREE_GUARD, TreeGuard } from './tree-guard.js';
import { decodeBorder, extendTree } from './tree.js';

const log = serviceLogger(LEDGER_SERVICE);

/** The commit transaction's operations; valid only inside `CommitRepository.transaction`. */
export class CommitTx {
  /** the head read by this transaction (committed state, whatever becomes of the transaction) */
  read: HeadPosition | null = null;
  /** the head this transaction's appends leave, once it commits */
  moved: HeadPosition | null = null;
  /** the tree of the head read under the lock (lockHead) */
  readTree: TreeState | null = null;
  /** the tree this transaction's appends leave, once extendTree ran */
  movedTree: TreeState | null = null;
  /** the entries appended so far, in order: the leaves extendTree adds */
  private readonly appended: LogEntry[] = [];

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
    this.read = headOf(row);
    this.readTree = decodeBorder(this.read.entryIndex + 1, row.tree_border);
    return { head: this.read, journal: bindingOf(row) };
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
    const { head, tree } = await selectedHead(this.query);
    this.read = head;
    this.readTree = tree;
    return head;
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

  /** Which of these refs are stored objects: ref → semantic id. */
  async storedObjects(refs: Ref[]): Promise<Map<string, string>> {
    if (refs.length === 0) return new Map();
    const { rows } = await this.query<{ hash: string; semantic_id: string }>(
      STORED_OBJECTS.text,
      [refs],
      STORED_OBJECTS.name,
    );
    return new Map(rows.map((r) => [r.hash, r.semantic_id]));
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
    const statement = appendStatement(write.journal?.mode ?? 'none', moveHead);
    const params = appendParams(statement, write);
    if (moveHead) this.moved = headAfter(write);
    this.appended.push(write.entry);
    const { rows } = await this.query(statement.text, params, statement.name);
    return rows.length === 1;
  }

  /**
   * Extends the Merkle tree by every entry this transaction appended, in one statement
   * (tree.ts TREE_EXTEND), after the appends: once per transaction, so a group commit extends it
   * once for its group. Nothing to do when nothing was appended.
   * @throws TreeStateError when appends were made without lockHead, or do not follow its head
   * @throws Error when the head does not stand on the last append with the border read (the
   *   transaction must roll back)
   */
  async extendTree(): Promise<void> {
    if (this.appended.length === 0) return;
    if (this.readTree === null)
      throw new TreeStateError('a commit transaction appended without locking the head');
    const extension = extendTree(this.readTree, this.appended);
    const { rows } = await this.query(
      TREE_EXTEND.text,
      treeExtendParams(this.readTree, extension),
      TREE_EXTEND.name,
    );
    if (rows.length !== 1)
      throw new Error(
        `the head did not stand on entry #${extension.state.size - 1} with the tree read under its lock`,
      );
    this.movedTree = extension.state;
  }
}

/**
 * The selected head, read without a lock.
 * @throws Error when the head row is missing (genesis was not bootstrapped)
 */
async function selectedHead(query: RawQuery): Promise<{ head: HeadPosition; tree: TreeState }> {
  const { rows } = await query<HeadRow>(READ_HEAD.text, [SELECTED_HEAD], READ_HEAD.name);
  const row = rows[0];
  if (row === undefined)
    throw new Error('ledger head row is missing: genesis was not bootstrapped');
  const head = headOf(row);
  return { head, tree: decodeBorder(head.entryIndex + 1, row.tree_border) };
}

/**
 * Runs commit transactions on the ledger's database (see CommitTx for what one writes) and the
 * one-statement append of a lone tool commit; remembers the head it last saw (LastHead) and the
 * tree of that head (the fast path extends it without reading it).
 */
@Injectable()
export class CommitRepository {
  /** the head this repository (this replica) last saw: the fast path's expected head */
  readonly lastHead = new LastHead();
  /** the tree of the last head seen with its tree, keyed by that head's entry hash */
  private lastTree: { entryHash: Ref; state: TreeState } | null = null;

  constructor(
    @Inject(DATABASE) private readonly database: DatabaseHandle,
    @Optional() @Inject(TREE_GUARD) private readonly guard: TreeGuard = new TreeGuard(),
  ) {}

  /** The tree of `head` if this replica saw it (the fast path's expected tree), else null. */
  treeAt(head: HeadPosition): TreeState | null {
    return this.lastTree?.entryHash === head.entryHash ? this.lastTree.state : null;
  }

  private seeTree(entryHash: Ref, state: TreeState): void {
    if (this.lastTree !== null && state.size < this.lastTree.state.size) return;
    this.lastTree = { entryHash, state };
  }

  /**
   * Runs `work` in one transaction on one connection (raw, named statements); when `work`
   * resolves, the tree is extended by what it appended (CommitTx.extendTree) and it commits;
   * it rolls back when either throws. Remembers the head (and tree) the transaction left
   * (committed) or read (either way).
   * @throws ServiceUnavailableError before anything when the log no longer extends its signed
   *   checkpoint (TreeGuard)
   */
  async transaction<T>(work: (t: CommitTx) => Promise<T>): Promise<T> {
    this.guard.check();
    let tx: CommitTx | undefined;
    try {
      const result = await this.database.transaction(async (query) => {
        const t = (tx = new CommitTx(query));
        const value = await work(t);
        await t.extendTree();
        return value;
      });
      const left = tx?.moved ?? tx?.read;
      if (left) this.lastHead.see(left);
      const tree = tx?.movedTree ?? tx?.readTree;
      if (left && tree && tree.size === left.entryIndex + 1) this.seeTree(left.entryHash, tree);
      return result;
    } catch (err) {
      // Rolled back: what it wrote never happened, what it read under the lock did.
      if (tx?.read) this.lastHead.see(tx.read);
      if (tx?.read && tx.readTree) this.seeTree(tx.read.entryHash, tx.readTree);
      throw err;
    }
  }

  /**
   * Appends a tool commit in one autocommit statement, on condition that the head still stands
   * exactly on `expected` with the tree this replica saw there, and the invocation has no
   * journal row it could not bind (committed, or a REST intent); all of the commit — its tree
   * rows included — is written or none of it (APPEND_ON_HEAD says why).
   * @param expected the head `write` was chained on (chainToolCommit)
   * @returns true when the commit landed (the head it left is remembered); false when nothing
   *   was written: no tree known for `expected`, the head moved, or the journal row must be
   *   looked at under the head lock (the caller falls back to the commit transaction)
   * @throws InvalidRefError when any ref about to be written is zero or malformed (nothing sent)
   * @throws ServiceUnavailableError when the log no longer extends its signed checkpoint
   * @throws whatever the database throws for the statement; a statement error means nothing was
   *   written, a lost connection leaves the outcome unknown (as for a COMMIT)
   */
  async appendOnHead(expected: HeadPosition, write: ToolAppendWrite): Promise<boolean> {
    this.guard.check();
    const before = this.treeAt(expected);
    if (before === null) return false;
    const extension = extendTree(before, [write.entry]);
    const params = appendOnHeadParams(expected, write, { before, extension });
    let rows: unknown[];
    try {
      ({ rows } = await this.database.query(APPEND_ON_HEAD.text, params, APPEND_ON_HEAD.name));
    } catch (err) {
      if ((err as { code?: unknown }).code !== JOURNAL_GUARD_SQLSTATE) throw err;
      // The journal guard aborted the statement: nothing was written.
      log.warn(
        { invocationId: write.journal.invocationId },
        'journal row could not be bound in the one-statement commit; using the transaction',
      );
      return false;
    }
    if (rows.length !== 1) return false;
    const after = headAfter(write);
    this.lastHead.see(after);
    this.seeTree(after.entryHash, extension.state);
    return true;
  }

  /** Reads the selected head, unlocked, and remembers it (at start: the first commit is fast). */
  async refreshHead(): Promise<HeadPosition> {
    const { head, tree } = await selectedHead(this.database.query);
    this.lastHead.see(head);
    this.seeTree(head.entryHash, tree);
    return head;
  }
}
