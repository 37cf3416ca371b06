/**
 * The broker's tables (schema `broker`; DESIGN.md §3). No other service imports this file.
 * Times are epoch milliseconds (bigint); refs are `sha256:<64 hex>` text.
 * No relative imports here: drizzle-kit loads this file on its own.
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  customType,
  foreignKey,
  index,
  integer,
  pgSchema,
  primaryKey,
  text,
} from 'drizzle-orm/pg-core';

export const broker = pgSchema('broker');

/** bytea as a Buffer (node-postgres gives a Buffer; a Uint8Array is wrapped too). */
const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => Buffer.from(value),
  toDriver: (value) => value,
});

const ms = (name: string) => bigint(name, { mode: 'number' });

/** Bearer sessions: only the sha256 of the token is kept (world-spec §2.2). */
export const sessions = broker.table(
  'sessions',
  {
    credentialId: text('credential_id').primaryKey(),
    episodeId: text('episode_id').notNull(),
    createdAt: ms('created_at').notNull(),
    expiresAt: ms('expires_at').notNull(),
    revokedAt: ms('revoked_at'),
  },
  (t) => [index('sessions_episode_idx').on(t.episodeId, t.createdAt)],
);

/** A session's grants in mint order (`position`), expiring with the session (incident 19). */
export const grants = broker.table(
  'grants',
  {
    credentialId: text('credential_id')
      .notNull()
      .references(() => sessions.credentialId),
    position: integer('position').notNull(),
    effect: text('effect').notNull(),
    scope: text('scope').notNull(),
    budget: bigint('budget', { mode: 'number' }).notNull(),
    expiresAt: ms('expires_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.credentialId, t.position] }),
    check('grants_budget_nonnegative', sql`${t.budget} >= 0`),
  ],
);

/**
 * Episodes and their lease (DESIGN.md §2 "Per-episode serialization"). A row may exist without a
 * worktree: a lease can be taken before (or without) `episode.create`.
 */
export const episodes = broker.table('episodes', {
  id: text('id').primaryKey(),
  worktree: text('worktree').unique('episodes_worktree_unique'),
  leaseHolder: text('lease_holder'),
  leaseFence: bigint('lease_fence', { mode: 'number' }).notNull().default(0),
  leaseExpiresAt: ms('lease_expires_at'),
});

/** Spend counter per (episode, effect, scope): Σ cost of the episode's intents (DESIGN.md §2). */
export const spend = broker.table(
  'spend',
  {
    episodeId: text('episode_id').notNull(),
    effect: text('effect').notNull(),
    scope: text('scope').notNull(),
    spent: bigint('spent', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.episodeId, t.effect, t.scope] })],
);

/** Durable effect intents, written before the handler runs (world-internals §5.3). */
export const effectIntents = broker.table(
  'effect_intents',
  {
    episodeId: text('episode_id').notNull(),
    ordinal: bigint('ordinal', { mode: 'number' }).notNull(),
    invocationId: text('invocation_id').notNull(),
    effect: text('effect').notNull(),
    scope: text('scope').notNull(),
    cost: bigint('cost', { mode: 'number' }).notNull(),
    requestRef: text('request_ref').notNull(),
    logicalTime: ms('logical_time').notNull(),
  },
  (t) => [
    // UNIQUE(episode_id, ordinal): the ordinal is minted max+1 under the episode row lock
    // (incidents 4 and 5); the key is also what an outcome refers to.
    primaryKey({ name: 'effect_intents_episode_ordinal', columns: [t.episodeId, t.ordinal] }),
    index('effect_intents_invocation_idx').on(t.invocationId),
    // The keyset order of the uncommitted-outcome sweep's pages (EffectsRepository.outcomesAfter):
    // without it each page sorts every intent of every episode.
    index('effect_intents_by_logical_time').on(t.logicalTime, t.episodeId, t.ordinal),
  ],
);

/** One outcome per intent, written after the record (world-internals §2.3). */
export const effectOutcomes = broker.table(
  'effect_outcomes',
  {
    episodeId: text('episode_id').notNull(),
    ordinal: bigint('ordinal', { mode: 'number' }).notNull(),
    status: text('status').notNull(),
    recordRef: text('record_ref').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.episodeId, t.ordinal] }),
    foreignKey({
      name: 'effect_outcomes_intent_fk',
      columns: [t.episodeId, t.ordinal],
      foreignColumns: [effectIntents.episodeId, effectIntents.ordinal],
    }),
    check('effect_outcomes_status', sql`${t.status} IN ('succeeded', 'failed')`),
  ],
);

/**
 * Effect records, one row per record object. The CHECK is the three-arm law of
 * world-internals §5.2: succeeded, failed, denied; (not allowed, failed) is impossible.
 */
export const effectRecords = broker.table(
  'effect_records',
  {
    ref: text('ref').primaryKey(),
    episodeId: text('episode_id').notNull(),
    invocationId: text('invocation_id').notNull(),
    effect: text('effect').notNull(),
    scope: text('scope').notNull(),
    cost: bigint('cost', { mode: 'number' }).notNull(),
    budgetBefore: bigint('budget_before', { mode: 'number' }).notNull(),
    budgetAfter: bigint('budget_after', { mode: 'number' }).notNull(),
    allowed: boolean('allowed').notNull(),
    failed: boolean('failed').notNull(),
    denial: text('denial').notNull(),
    requestRef: text('request_ref').notNull(),
    resultRef: text('result_ref').notNull(),
  },
  (t) => [
    check(
      'effect_records_three_arm_law',
      sql`(${t.allowed} AND NOT ${t.failed} AND ${t.denial} = '' AND ${t.budgetAfter} = ${t.budgetBefore} - ${t.cost} AND ${t.resultRef} <> '')
       OR (${t.allowed} AND ${t.failed} AND ${t.denial} = '' AND ${t.budgetAfter} = ${t.budgetBefore} - ${t.cost} AND ${t.resultRef} = '')
       OR (NOT ${t.allowed} AND NOT ${t.failed} AND ${t.denial} IN ('denied:effect-name', 'denied:scope', 'denied:expired', 'denied:budget') AND ${t.budgetAfter} = ${t.budgetBefore} AND ${t.resultRef} = '')`,
    ),
    check(
      'effect_records_nonnegative',
      sql`${t.cost} >= 0 AND ${t.budgetBefore} >= 0 AND ${t.budgetAfter} >= 0`,
    ),
    index('effect_records_invocation_idx').on(t.invocationId),
  ],
);

/**
 * Request, result and record objects (world-spec §2.13); immutable, first writer wins. `seq`
 * numbers them in the order they were stored, so the start-up integrity scan checks the newest
 * first (world-spec §2.18); no write names it.
 */
export const objects = broker.table(
  'objects',
  {
    ref: text('ref').primaryKey(),
    semanticId: text('semantic_id').notNull(),
    provenance: text('provenance').notNull(),
    payload: bytea('payload').notNull(),
    seq: bigint('seq', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
  },
  (t) => [index('objects_by_seq').on(t.seq)],
);

/**
 * Workbench login tickets already exchanged (README "The workbench"): the ticket's nonce, kept
 * until the ticket expires, so a ticket is one-time across every gateway replica.
 */
export const workbenchTickets = broker.table('workbench_tickets', {
  nonce: text('nonce').primaryKey(),
  expiresAt: ms('expires_at').notNull(),
});
