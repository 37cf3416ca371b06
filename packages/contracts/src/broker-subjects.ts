/**
 * The broker's subjects' request and reply schemas (sessions, episodes, leases, effects, spend),
 * listed in the subject table of subjects.ts (DESIGN.md §1).
 */
import { z } from 'zod';
import {
  CallerIdSchema,
  CredentialIdSchema,
  EpisodeIdSchema,
  EpochMs,
  GrantSchema,
  NonNegInt,
  PlannedEffectSchema,
  RefSchema,
  SessionSchema,
  WireObjectSchema,
  EffectRecordSchema,
  EffectStatusSchema,
} from './schemas.js';
import { ReadScopeSchema } from './visibility.js';

const JsonObject = z.record(z.string(), z.unknown());

export const SessionMintRequest = z.object({
  episodeId: EpisodeIdSchema,
  grants: z.array(GrantSchema).min(1),
  ttlSeconds: z.number().int().positive(),
});
export const SessionMintReply = SessionSchema.extend({ token: z.string().regex(/^[0-9a-f]{64}$/) });

export const SessionResolveReply = z.discriminatedUnion('status', [
  z.object({ status: z.literal('ok'), session: SessionSchema }),
  z.object({ status: z.literal('unknown') }),
  z.object({ status: z.literal('revoked') }),
  z.object({ status: z.literal('expired') }),
]);

export const SessionInfoSchema = SessionSchema.extend({
  revokedAt: EpochMs.nullable(),
  live: z.boolean(),
});

const EpisodeSourceSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('empty') }),
  z.object({ kind: z.literal('copy'), dir: z.string().min(1) }),
  z.object({ kind: z.literal('git'), repo: z.string().min(1), ref: z.string().optional() }),
]);
export const EpisodeCreateRequest = z.object({
  episodeId: EpisodeIdSchema,
  source: EpisodeSourceSchema,
});
export const EpisodeReply = z.object({
  episodeId: EpisodeIdSchema,
  worktree: z.string(),
  created: z.boolean().optional(),
});

export const LeaseAcquireRequest = z.object({
  episodeId: EpisodeIdSchema,
  holder: z.string().min(1).max(200),
  ttlMs: z.number().int().positive(),
  /** how long to wait for a held lease before giving up */
  waitMs: z.number().int().nonnegative(),
  /**
   * the requesting planner instance's caller id: a request that had to wait for the lease is
   * granted it only while that instance answers its liveness subject (callerSubject)
   */
  caller: CallerIdSchema.optional(),
});
export const LeaseReply = z.object({
  fence: z.number().int().positive(),
  expiresAt: EpochMs,
  tookOver: z.boolean(),
});
export const LeaseRenewRequest = z.object({
  episodeId: EpisodeIdSchema,
  holder: z.string().min(1),
  fence: z.number().int().positive(),
  ttlMs: z.number().int().positive(),
});
export const LeaseReleaseRequest = z.object({
  episodeId: EpisodeIdSchema,
  holder: z.string().min(1),
  fence: z.number().int().positive(),
});

/** Run one planned effect under the broker's decision law (world-spec §2.8, DESIGN.md §2). */
export const EffectExecuteRequest = z.object({
  invocationId: z.string().min(1),
  credentialId: CredentialIdSchema,
  episodeId: EpisodeIdSchema,
  /** the fencing token of the lease the caller holds… */
  fence: z.number().int().positive().optional(),
  /** …or a lease to take in the same transaction (saves one round trip) */
  acquire: LeaseAcquireRequest.omit({ episodeId: true }).optional(),
  /** the caller's logical time, epoch ms, used for the decision and the intent */
  now: EpochMs,
  effect: PlannedEffectSchema,
  /** the handler's hard cap */
  handlerMs: z.number().int().positive(),
  /**
   * the latest moment (epoch ms) the handler may start: past it the caller no longer waits for
   * the answer (it has settled the call as unrecorded), so the effect must not run — a request
   * read late by a paused or starved broker is refused, and one whose tx1 finished late records
   * a failed effect instead of running
   */
  startBy: EpochMs.optional(),
});
export const EffectExecuteReply = z.object({
  fence: z.number().int().positive(),
  status: EffectStatusSchema,
  recordRef: RefSchema,
  record: EffectRecordSchema,
  /** the handler's output object (status ok), else null */
  output: JsonObject.nullable(),
  /** request, result (when any) and record objects, to be carried by the commit */
  objects: z.array(WireObjectSchema),
});

const EffectIntentStateSchema = z.object({
  ordinal: NonNegInt,
  effect: z.string(),
  scope: z.string(),
  cost: NonNegInt,
  status: z.enum(['indeterminate', 'succeeded', 'failed']),
  recordRef: RefSchema.nullable(),
});
export const EffectsByInvocationReply = z.object({ items: z.array(EffectIntentStateSchema) });

const IndeterminateIntentSchema = z.object({
  invocationId: z.string(),
  episodeId: EpisodeIdSchema,
  ordinal: NonNegInt,
  effect: z.string(),
  scope: z.string(),
});
export const RecoveryReportEvent = z.object({
  replica: z.string(),
  items: z.array(IndeterminateIntentSchema),
});

/**
 * `broker.episode.spend` (the workbench's Episodes page, DESIGN.md §5a): one episode's grants with
 * their spend, its lease and its indeterminate intents, read in the caller's scope (visibility
 * resource `spend`: a session reads only its own episode; any other is NotFound).
 */
export const EpisodeSpendRequest = z.object({ episodeId: EpisodeIdSchema, scope: ReadScopeSchema });
export const EpisodeSpendReply = z.object({
  episodeId: EpisodeIdSchema,
  /** every grant of the episode's sessions (newest session first, mint order within), in cost units */
  grants: z.array(
    z.object({
      credentialId: CredentialIdSchema,
      effect: z.string().min(1),
      scope: z.string().min(1),
      budget: NonNegInt,
      /** Σ cost of the episode's intents for (effect, scope) (broker.spend) */
      spent: NonNegInt,
      /** budget − spent floored at 0: what the grant decision sees (world-internals §5.1) */
      left: NonNegInt,
      expiresAt: EpochMs,
    }),
  ),
  /** the lease holder (a planner replica's call) until expiresAt, or null when free or lapsed */
  lease: z.object({ holder: z.string(), fence: NonNegInt, expiresAt: EpochMs }).nullable(),
  /** intents without outcome that no live replica can finish (the broker's recovery rule) */
  indeterminate: z.array(IndeterminateIntentSchema),
});
