/**
 * The only code that appends to the log: the commit transaction over objects, log_entries,
 * worlds, commit_objects, heads and commit_journal (DESIGN.md §2 "ledger tx", §3).
 *
 * One commit = BEGIN; one read that locks the head row and joins the invocation's journal row;
 * one statement that writes objects, entry, world, membership, head and journal outcome; COMMIT.
 * The write takes the head it was given rather than re-reading it, so a later group commit can
 * chain several prepared commits on one locked head and write them in the same way.
 */
import { Inject, Injectable } from '@nestjs/common';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { LogEntry, Ref, World, WorldObject } from '@world/canonical';
import { DATABASE, type DatabaseHandle } from '@world/runtime';
import {
  SELECTED_HEAD,
  commitJournal,
  commitObjects,
  heads,
  logEntries,
  objects,
  worlds,
  type JournalKind,
  type JournalState,
} from '../db/schema.js';
import {
  assertRefs,
  chunkRows,
  runWrites,
  storedRef,
  type Tx,
  type Write,
} from '../db/statements.js';
import type { HeadPosition } from './chain.js';

/** Bind parameters per row of each multi-row insert, and a bound for the one-row writes. */
const OBJECT_PARAMS = 5;
const MEMBERSHIP_PARAMS = 2;
const SINGLE_WRITE_PARAMS_MAX = 32;
const FIXED_WRITES = 4;

/**
 * The head row under an alias: Postgres wants `FOR UPDATE OF` to name an unqualified relation,
 * and drizzle qualifies a table with its schema unless it is aliased.
 */
const lockedHead = alias(heads, 'locked_head');

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

/** The commit transaction's operations; valid only inside `CommitRepository.transaction`. */
export class CommitTx {
  constructor(private readonly tx: Tx) {}

  /**
   * Locks the head row (SELECT … FOR UPDATE) and reads the invocation's journal row with it.
   * Every append takes this lock first, so appends serialize here (DESIGN.md §1).
   * @throws Error when the head row is missing (genesis runs at start-up, so never in service)
   */
  async lockHead(
    invocationId: string | null,
  ): Promise<{ head: HeadPosition; journal: JournalBinding | null }> {
    const rows = await this.tx
      .select({
        worldRef: lockedHead.worldRef,
        entryIndex: lockedHead.entryIndex,
        entryHash: lockedHead.entryHash,
        revision: lockedHead.revision,
        journal: {
          kind: commitJournal.kind,
          state: commitJournal.state,
          commitHash: commitJournal.commitHash,
          entryIndex: commitJournal.entryIndex,
          worldRef: commitJournal.worldRef,
        },
        entry: { entryHash: logEntries.entryHash, prevEntryHash: logEntries.prevEntryHash },
        world: { revision: worlds.revision },
      })
      .from(lockedHead)
      .leftJoin(commitJournal, eq(commitJournal.invocationId, invocationId ?? ''))
      .leftJoin(logEntries, eq(logEntries.entryIndex, commitJournal.entryIndex))
      .leftJoin(worlds, eq(worlds.ref, commitJournal.worldRef))
      .where(eq(lockedHead.key, SELECTED_HEAD))
      .for('update', { of: lockedHead });
    const row = rows[0];
    if (row === undefined)
      throw new Error('ledger head row is missing: genesis was not bootstrapped');
    const head: HeadPosition = {
      worldRef: storedRef(row.worldRef),
      entryIndex: row.entryIndex,
      entryHash: storedRef(row.entryHash),
      revision: row.revision,
    };
    const j = row.journal;
    if (j === null) return { head, journal: null };
    const outcome =
      j.state === 'committed' &&
      j.entryIndex !== null &&
      j.worldRef !== null &&
      row.entry &&
      row.world
        ? {
            entryIndex: j.entryIndex,
            entryHash: storedRef(row.entry.entryHash),
            prevEntryHash: storedRef(row.entry.prevEntryHash),
            worldRef: storedRef(j.worldRef),
            revision: row.world.revision,
          }
        : null;
    return { head, journal: { kind: j.kind, state: j.state, commitHash: j.commitHash, outcome } };
  }

  /** Reads the selected head without locking it. */
  async readHead(): Promise<HeadPosition> {
    const [row] = await this.tx.select().from(heads).where(eq(heads.key, SELECTED_HEAD));
    if (row === undefined)
      throw new Error('ledger head row is missing: genesis was not bootstrapped');
    return {
      worldRef: storedRef(row.worldRef),
      entryIndex: row.entryIndex,
      entryHash: storedRef(row.entryHash),
      revision: row.revision,
    };
  }

  /** Reads and locks an invocation's journal row (REST intents; world-internals §5.3). */
  async lockJournal(
    invocationId: string,
  ): Promise<{ state: JournalState; commitHash: string | null; worldRef: Ref | null } | null> {
    const [row] = await this.tx
      .select({
        state: commitJournal.state,
        commitHash: commitJournal.commitHash,
        worldRef: commitJournal.worldRef,
      })
      .from(commitJournal)
      .where(eq(commitJournal.invocationId, invocationId))
      .for('update');
    if (row === undefined) return null;
    return {
      state: row.state,
      commitHash: row.commitHash,
      worldRef: row.worldRef === null ? null : storedRef(row.worldRef),
    };
  }

  /** Which of these refs are stored objects. */
  async storedObjects(refs: Ref[]): Promise<Set<string>> {
    if (refs.length === 0) return new Set();
    const rows = await this.tx
      .select({ hash: objects.hash })
      .from(objects)
      .where(inArray(objects.hash, refs));
    return new Set(rows.map((r) => r.hash));
  }

  /**
   * Journals a REST commit's intent (state 'intent'); a row already present is left alone.
   * @returns false when a concurrent sender inserted the row first
   */
  async insertRestIntent(invocationId: string, commitHash: string): Promise<boolean> {
    const rows = await this.tx
      .insert(commitJournal)
      .values({ invocationId, kind: 'rest', commitHash, state: 'intent' })
      .onConflictDoNothing()
      .returning({ id: commitJournal.invocationId });
    return rows.length === 1;
  }

  /** Removes a REST intent whose commit was refused under the head lock: it never landed. */
  async dropRestIntent(invocationId: string, commitHash: string): Promise<void> {
    await this.tx
      .delete(commitJournal)
      .where(
        and(
          eq(commitJournal.invocationId, invocationId),
          eq(commitJournal.state, 'intent'),
          eq(commitJournal.commitHash, commitHash),
        ),
      );
  }

  /**
   * Appends one commit: objects (ON CONFLICT DO NOTHING: first provenance wins), the entry, the
   * world, one commit_objects row per carried object (incident 25), the head move and the journal
   * outcome (state committed, entry_index, world_ref, output_ref = stateRoot) — one statement
   * unless the objects overflow the bind-parameter cap.
   * @returns false when the journal row was not in a state this commit may bind (nothing is
   *   valid then: the caller must roll back)
   * @throws InvalidRefError when any ref about to be written is zero or malformed
   */
  async append(write: AppendWrite): Promise<boolean> {
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

    const writes: Write[] = [];
    const reserve = SINGLE_WRITE_PARAMS_MAX * FIXED_WRITES;
    for (const rows of chunkRows(write.objects, OBJECT_PARAMS, reserve)) {
      writes.push({
        sql: this.tx
          .insert(objects)
          .values(
            rows.map((o) => ({
              hash: o.hash,
              interfaceHash: o.interfaceHash,
              semanticId: o.semanticId,
              provenance: o.provenance,
              payload: o.payload,
            })),
          )
          .onConflictDoNothing()
          .getSQL(),
        params: rows.length * OBJECT_PARAMS,
      });
    }
    writes.push({
      sql: this.tx
        .insert(logEntries)
        .values({
          entryIndex: header.entryIndex,
          entryHash: entry.entryHash,
          semanticsEpoch: header.semanticsEpoch,
          transitionFn: header.transitionFn,
          interpreter: header.interpreter,
          prevEntryHash: header.prevEntryHash,
          writtenBy: header.writtenBy,
          transitionRef: entry.transitionRef,
        })
        .getSQL(),
      params: SINGLE_WRITE_PARAMS_MAX,
    });
    writes.push({
      sql: this.tx
        .insert(worlds)
        .values({
          ref: world.ref,
          revision: world.revision,
          stateRoot: world.stateRoot,
          logHead: world.logHead,
        })
        .onConflictDoNothing()
        .getSQL(),
      params: SINGLE_WRITE_PARAMS_MAX,
    });
    for (const rows of chunkRows(write.objects, MEMBERSHIP_PARAMS, reserve)) {
      writes.push({
        sql: this.tx
          .insert(commitObjects)
          .values(rows.map((o) => ({ objectRef: o.hash, entryIndex: header.entryIndex })))
          .getSQL(),
        params: rows.length * MEMBERSHIP_PARAMS,
      });
    }
    writes.push({
      sql: this.tx
        .update(heads)
        .set({
          worldRef: world.ref,
          entryIndex: header.entryIndex,
          entryHash: entry.entryHash,
          revision: world.revision,
        })
        .where(eq(heads.key, SELECTED_HEAD))
        .getSQL(),
      params: SINGLE_WRITE_PARAMS_MAX,
    });
    if (journal !== null) {
      const outcome = {
        state: 'committed' as const,
        commitHash: journal.commitHash,
        endReason: null,
        entryIndex: header.entryIndex,
        worldRef: world.ref,
        outputRef: world.stateRoot,
        updatedAt: sql`now()`,
      };
      const bindable =
        journal.mode === 'tool'
          ? sql`${commitJournal.state} IN ('claimed', 'ended')`
          : and(
              eq(commitJournal.state, 'intent'),
              eq(commitJournal.commitHash, journal.commitHash),
            );
      writes.push({
        sql: this.tx
          .insert(commitJournal)
          .values({ invocationId: journal.invocationId, kind: journal.mode, ...outcome })
          .onConflictDoUpdate({
            target: commitJournal.invocationId,
            set: outcome,
            setWhere: bindable,
          })
          .returning({ id: commitJournal.invocationId })
          .getSQL(),
        params: SINGLE_WRITE_PARAMS_MAX,
      });
    }
    const returned = await runWrites(this.tx, writes);
    return journal === null || returned.length === 1;
  }
}

/** Runs commit transactions on the ledger's database (see CommitTx for what one writes). */
@Injectable()
export class CommitRepository {
  constructor(@Inject(DATABASE) private readonly database: DatabaseHandle) {}

  /**
   * Runs `work` in one transaction; it commits when `work` resolves and rolls back when it
   * throws.
   */
  transaction<T>(work: (t: CommitTx) => Promise<T>): Promise<T> {
    return this.database.db.transaction((tx) => work(new CommitTx(tx)));
  }
}
