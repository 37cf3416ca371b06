/**
 * The only code that reads or writes invocation claims and receipts in `commit_journal`
 * (commits write their outcome through the commit repository, in their own transaction).
 */
import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { and, eq, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { LogEntry, World } from '@world/canonical';
import { DATABASE, type DatabaseHandle } from '@world/runtime';
import { commitJournal, logEntries, objects, worlds, type EndReason } from '../db/schema.js';
import { storedRef, type Queryable } from '../db/statements.js';
import { decideBegin, type BeginReply, type JournalView } from './invocation-law.js';

/** The journal under an alias, so `FOR UPDATE OF` names it unqualified (as Postgres requires). */
const journal = alias(commitJournal, 'journal');

/**
 * `claim_expires_at <= clock_timestamp()`, evaluated by the database so every replica shares one
 * clock — the clock the commit's bind checks (append.statements.ts toolBindable), at the moment
 * of the read rather than the transaction's start, so a claim read as lapsed can no longer commit.
 */
const expired = sql<boolean>`coalesce(${journal.claimExpiresAt} <= clock_timestamp(), false)`;

/** Bytes of a claim token (hex-encoded: 32 characters). */
const CLAIM_TOKEN_BYTES = 16;

/** Claims, their ends and the journal reads behind receipts (DESIGN.md §7.4, world-internals §5.3). */
@Injectable()
export class JournalRepository {
  constructor(@Inject(DATABASE) private readonly database: DatabaseHandle) {}

  /**
   * Reads an invocation's journal row.
   * @param withOutput also read the committed output object's payload bytes
   */
  find(invocationId: string, withOutput: boolean): Promise<JournalView | null> {
    return readView(this.database.db, invocationId, withOutput, false);
  }

  /**
   * Reads what a receipt serves: the invocation's journal row, the world row its world ref names
   * and the entry its entry index names (null when absent), so the receipt can be checked against
   * the chain before it is served (DESIGN.md §3).
   */
  async receipt(
    invocationId: string,
  ): Promise<{ view: JournalView; world: World | null; entry: LogEntry | null } | null> {
    const view = await readView(this.database.db, invocationId, false, false);
    if (view === null || view.worldRef === null || view.entryIndex === null)
      return view === null ? null : { view, world: null, entry: null };
    const [world] = await this.database.db
      .select()
      .from(worlds)
      .where(eq(worlds.ref, view.worldRef));
    const [entry] = await this.database.db
      .select()
      .from(logEntries)
      .where(eq(logEntries.entryIndex, view.entryIndex));
    return {
      view,
      world:
        world === undefined
          ? null
          : {
              ref: storedRef(world.ref),
              revision: world.revision,
              stateRoot: storedRef(world.stateRoot),
              logHead: storedRef(world.logHead),
            },
      entry:
        entry === undefined
          ? null
          : {
              header: {
                entryIndex: entry.entryIndex,
                semanticsEpoch: entry.semanticsEpoch,
                transitionFn: storedRef(entry.transitionFn),
                interpreter: storedRef(entry.interpreter),
                prevEntryHash: storedRef(entry.prevEntryHash),
                writtenBy: entry.writtenBy,
              },
              entryHash: storedRef(entry.entryHash),
              transitionRef: storedRef(entry.transitionRef),
            },
    };
  }

  /**
   * Begins (claims) an idempotent invocation: a fresh id is claimed in one statement; otherwise
   * the row is locked and decideBegin says what to answer, or to claim it again (reclaim).
   * The claim lapses `ttlMs` after this moment, by the database clock. Each claim and reclaim
   * mints a fresh token: only a commit or end carrying it acts on the claim, and records the
   * claiming planner instance's caller id (`holder`), which an in-flight answer names.
   *
   * The row is locked without a join, and the committed output is read after the lock in a
   * statement of its own: under READ COMMITTED a `FOR UPDATE` that waited for a concurrent
   * commit re-reads the locked row only, never a joined one, so a joined read saw the journal
   * committed but its output object missing (a duplicate sent while the first commit landed
   * answered an internal error).
   */
  begin(
    invocationId: string,
    requestHash: string,
    ttlMs: number,
    reclaim: boolean,
    holder: string | null = null,
  ): Promise<BeginReply> {
    const expiresAt = sql`clock_timestamp() + (${ttlMs}::float8 * interval '1 millisecond')`;
    const claimToken = randomBytes(CLAIM_TOKEN_BYTES).toString('hex');
    return this.database.db.transaction(async (tx) => {
      const inserted = await tx
        .insert(commitJournal)
        .values({
          invocationId,
          kind: 'tool',
          claimHash: requestHash,
          state: 'claimed',
          claimExpiresAt: expiresAt,
          claimToken,
          claimHolder: holder,
        })
        .onConflictDoNothing()
        .returning({ id: commitJournal.invocationId });
      if (inserted.length === 1) return { state: 'claimed', claimToken } as const;
      const locked = await readView(tx, invocationId, false, true);
      const row =
        locked?.state === 'committed'
          ? { ...locked, output: await outputOf(tx, locked.outputRef) }
          : locked;
      const decision = decideBegin(row, requestHash, reclaim);
      if (decision.action === 'answer') return decision.reply;
      await tx
        .update(commitJournal)
        .set({
          state: 'claimed',
          endReason: null,
          claimExpiresAt: expiresAt,
          claimToken,
          claimHolder: holder,
          updatedAt: sql`now()`,
        })
        .where(eq(commitJournal.invocationId, invocationId));
      return { state: 'claimed', claimToken } as const;
    });
  }

  /**
   * Ends (gives up) a claim that has not committed, expired or not: from then on no commit binds
   * it (append.statements.ts toolBindable), so the answer is final. With `claimToken`, only the
   * claim of that attempt is ended (a resend's reclaim is left alone). The row lock orders this
   * against a commit binding the row: one of them wins, never both.
   * @returns true when a claimed row was marked ended; false for committed, ended, intent,
   *   reclaimed or absent rows (nothing changes)
   */
  async end(
    invocationId: string,
    reason: Exclude<EndReason, 'lapsed'>,
    claimToken?: string,
  ): Promise<boolean> {
    const rows = await this.database.db
      .update(commitJournal)
      .set({ state: 'ended', endReason: reason, updatedAt: sql`now()` })
      .where(
        and(
          eq(commitJournal.invocationId, invocationId),
          eq(commitJournal.state, 'claimed'),
          claimToken === undefined ? undefined : eq(commitJournal.claimToken, claimToken),
        ),
      )
      .returning({ id: commitJournal.invocationId });
    return rows.length === 1;
  }
}

/** The payload of a stored object (null when absent or when there is no ref). */
async function outputOf(db: Queryable, ref: string | null): Promise<Buffer | null> {
  if (ref === null) return null;
  const [row] = await db
    .select({ payload: objects.payload })
    .from(objects)
    .where(eq(objects.hash, ref));
  return row?.payload ?? null;
}

async function readView(
  db: Queryable,
  invocationId: string,
  withOutput: boolean,
  lock: boolean,
): Promise<JournalView | null> {
  const query = db
    .select({
      kind: journal.kind,
      state: journal.state,
      claimHash: journal.claimHash,
      endReason: journal.endReason,
      expired,
      claimHolder: journal.claimHolder,
      entryIndex: journal.entryIndex,
      worldRef: journal.worldRef,
      outputRef: journal.outputRef,
      output: withOutput ? objects.payload : sql<null>`null`,
    })
    .from(journal)
    .leftJoin(objects, withOutput ? eq(objects.hash, journal.outputRef) : sql`false`)
    .where(eq(journal.invocationId, invocationId));
  const [row] = lock ? await query.for('update', { of: journal }) : await query;
  if (row === undefined) return null;
  return {
    ...row,
    worldRef: row.worldRef === null ? null : storedRef(row.worldRef),
    outputRef: row.outputRef === null ? null : storedRef(row.outputRef),
    output: row.output ?? null,
  };
}
