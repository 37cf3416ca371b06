/**
 * Every NATS subject World uses: its name, request schema and reply schema (DESIGN.md §1).
 * Subjects on the wire carry a configurable prefix (`<prefix>.<name>`, default `world`).
 * Kind `request` is request-reply over a queue group; kind `event` is fire-and-forget
 * (`broadcast` events reach every replica, others one replica of the group); kind `request` with
 * `survey` is answered by every replica, outside the queue group (RpcClient.survey).
 */
import { z } from 'zod';
import {
  CredentialIdSchema,
  EpisodeIdSchema,
  EpochMs,
  LogEntrySchema,
  NonNegInt,
  ObjectHeadSchema,
  ObjectReplySchema,
  RefSchema,
  WireObjectSchema,
  WorldSchema,
  EffectRecordSchema,
  CallerIdSchema,
} from './schemas.js';
import { CommitAuthorSchema, ObjectGetRequest, ReadScopeSchema } from './visibility.js';
import { ReplicaReportSchema } from './replicas.js';
import { FlaggedEntrySchema, LedgerLocateReply, LedgerLocateRequest } from './log-reads.js';
import {
  LedgerTimelineRateReply,
  LedgerTimelineRateRequest,
  LedgerTimelineReply,
  LedgerTimelineRequest,
  LedgerUnrecordedReply,
  LedgerUnrecordedRequest,
} from './timeline.js';
import {
  CheckpointReply,
  ConsistencyProofReply,
  InclusionProofReply,
  LogKeyReply,
} from './tlog.js';

import {
  SessionMintRequest,
  SessionMintReply,
  SessionResolveReply,
  SessionInfoSchema,
  EpisodeCreateRequest,
  EpisodeReply,
  LeaseAcquireRequest,
  LeaseReply,
  LeaseRenewRequest,
  LeaseReleaseRequest,
  EffectExecuteRequest,
  EffectExecuteReply,
  EffectsByInvocationReply,
  RecoveryReportEvent,
  EpisodeSpendRequest,
  EpisodeSpendReply,
} from './broker-subjects.js';

const Empty = z.object({}).strict();
const Health = z.object({ service: z.string(), status: z.literal('ok'), replica: z.string() });

// ---------------------------------------------------------------- ledger

/**
 * A coordinator commit: the ledger assigns index and previous hash (DESIGN.md §7.1).
 * @internal exported for packages/runtime/src/nats-client.spec.ts
 */
export const LedgerCommitRequest = z.object({
  invocationId: z.string().min(1),
  writtenBy: z.string().min(1).max(256),
  semanticsEpoch: NonNegInt,
  transitionFn: RefSchema,
  interpreter: RefSchema,
  /** the invocation record: the entry's body */
  transitionRef: RefSchema,
  /** the output object: the next world's stateRoot */
  stateRoot: RefSchema,
  /** every object reachable from the entry */
  objects: z.array(WireObjectSchema),
  /**
   * the claim token `ledger.invocation.begin` answered (keyed calls): the commit binds the
   * journal row only while that claim is still held and live, so a claim that was given up or
   * lapsed never commits later (DESIGN.md §2)
   */
  claimToken: z.string().min(1).max(64).optional(),
});
const LedgerCommitReply = z.object({
  entryIndex: NonNegInt,
  entryHash: RefSchema,
  prevEntryHash: RefSchema,
  worldRef: RefSchema,
  revision: NonNegInt,
  /** true when this invocation id had already committed the same content */
  replayed: z.boolean(),
});

/** A REST commit: compare-and-append on observedHead (world-spec §5.10). */
export const LedgerRestCommitRequest = z.object({
  /** who commits: the gateway states it from the credential (DESIGN.md §3) */
  author: CommitAuthorSchema,
  invocationId: z.string().optional(),
  observedHead: z.string(),
  objects: z.array(WireObjectSchema),
  nextWorld: WorldSchema,
  entry: LogEntrySchema,
});
const LedgerRestCommitReply = z.object({ selectedHead: RefSchema });

const LedgerHeadReply = z.object({
  worldRef: RefSchema.nullable(),
  world: WorldSchema.nullable(),
  entryIndex: NonNegInt.nullable(),
});

const ReceiptStateSchema = z.enum(['not-started', 'indeterminate', 'resolved']);
const LedgerReceiptReply = z.object({
  invocationId: z.string(),
  state: ReceiptStateSchema,
  resultRef: RefSchema.optional(),
});

/** Claim an idempotent invocation id before running it (A2A task ids, MCP `world/taskId`). */
const LedgerInvocationBeginRequest = z.object({
  invocationId: z.string().min(1),
  /** sha256 hex of the canonical (tool, arguments): a resend must carry the same */
  requestHash: z.string().regex(/^[0-9a-f]{64}$/),
  /** the claim lapses after this long without a commit or an end */
  ttlMs: z.number().int().positive(),
  /** take over a claim that `ended` (the caller has checked that nothing ran under it) */
  reclaim: z.boolean().optional(),
  /**
   * the claiming planner instance's caller id: an in-flight answer names it, so the waiting
   * gateway can ask `planner.alive.<holder>` whether the claim's holder is still there (a
   * resend's answer does not depend on it: only on the broker's effect intents)
   */
  holder: CallerIdSchema.optional(),
});
const LedgerInvocationBeginReply = z.discriminatedUnion('state', [
  /** the claim is this caller's: `claimToken` fences its commit and its end */
  z.object({ state: z.literal('claimed'), claimToken: z.string().min(1).max(64) }),
  z.object({
    state: z.literal('committed'),
    entryIndex: NonNegInt,
    worldRef: RefSchema,
    outputRef: RefSchema,
    /** the committed output object's exact bytes, base64 */
    output: z.string(),
  }),
  /** a live claim (or a REST intent); `holder` names the planner instance holding the claim */
  z.object({ state: z.literal('in-flight'), holder: CallerIdSchema.optional() }),
  z.object({ state: z.literal('mismatch') }),
  /** the first attempt ended without a commit (lapsed, uncertain or abandoned) */
  z.object({ state: z.literal('ended'), reason: z.enum(['lapsed', 'uncertain', 'abandoned']) }),
]);
/** What the ledger knows of an invocation id, read-only (A2A GetTask). */
const LedgerInvocationGetReply = z.discriminatedUnion('state', [
  z.object({ state: z.literal('none') }),
  LedgerInvocationBeginReply.options[1],
  LedgerInvocationBeginReply.options[2],
  LedgerInvocationBeginReply.options[4],
]);
const LedgerInvocationEndRequest = z.object({
  invocationId: z.string().min(1),
  reason: z.enum(['uncertain', 'abandoned']),
  /** ends the claim only while it is still the one with this token (a reclaim is left alone) */
  claimToken: z.string().min(1).max(64).optional(),
});

const LedgerRegistryPublishRequest = z.object({
  name: z.string().min(1),
  object: WireObjectSchema,
  /**
   * Objects the head's object names, archived with it (the transition registry's sources and
   * interpreter: every entry's `transitionFn` and `interpreter` then resolve, DESIGN.md §4).
   */
  objects: z.array(WireObjectSchema).max(256).optional(),
});
const LedgerRegistryReply = z.object({
  name: z.string(),
  head: RefSchema,
  changed: z.boolean().optional(),
});

const LedgerCommittedEvent = z.object({
  entryIndex: NonNegInt,
  entryHash: RefSchema,
  worldRef: RefSchema,
  writtenBy: z.string(),
  invocationId: z.string().nullable(),
});

import {
  ToolsListRequest,
  ToolsListReply,
  InvokeRequest,
  InvokeReply,
  InvokeReceipt,
  PlannerInfoReply,
  PlannerAliveRequest,
  PlannerAliveReply,
  CallIdSchema,
} from './planner-subjects.js';

// ---------------------------------------------------------------- the table

/** The contract of one subject. */
export interface SubjectContract<
  Req extends z.ZodType = z.ZodType,
  Rep extends z.ZodType = z.ZodType,
> {
  kind: 'request' | 'event';
  /** events only: every replica receives it (no queue group) */
  broadcast?: boolean;
  /**
   * requests only: every replica answers it (no queue group), and the caller collects the
   * replies for a window (RpcClient.survey / RpcClient.answer), never RpcClient.request
   */
  survey?: boolean;
  /**
   * requests only: the replica that takes the request can acknowledge it with this receipt
   * before it acts on it, and acts only if its caller still waits for the answer
   * (RequestOptions.onReceipt on the caller's side, confirmReceipt on the replica's)
   */
  receipt?: z.ZodType;
  request: Req;
  reply: Rep;
}

const rq = <Req extends z.ZodType, Rep extends z.ZodType>(request: Req, reply: Rep) =>
  ({ kind: 'request', request, reply }) as const;
const rr = <Req extends z.ZodType, Rep extends z.ZodType, Rct extends z.ZodType>(
  request: Req,
  reply: Rep,
  receipt: Rct,
) => ({ kind: 'request', request, reply, receipt }) as const;
const sv = <Req extends z.ZodType, Rep extends z.ZodType>(request: Req, reply: Rep) =>
  ({ kind: 'request', survey: true, request, reply }) as const;
const ev = <Req extends z.ZodType>(request: Req, broadcast: boolean) =>
  ({ kind: 'event', broadcast, request, reply: z.undefined() }) as const;

export const CONTRACTS = {
  'ledger.commit': rq(LedgerCommitRequest, LedgerCommitReply),
  'ledger.restCommit': rq(LedgerRestCommitRequest, LedgerRestCommitReply),
  'ledger.head': rq(Empty, LedgerHeadReply),
  'ledger.world.get': rq(z.object({ ref: RefSchema }), WorldSchema),
  'ledger.object.get': rq(ObjectGetRequest, ObjectReplySchema),
  'ledger.objects.bySemanticId': rq(
    z.object({
      scope: ReadScopeSchema,
      semanticId: z.string().min(1),
      after: RefSchema.optional(),
      limit: z.number().int().positive(),
    }),
    z.object({ items: z.array(ObjectHeadSchema) }),
  ),
  'ledger.log.entry': rq(
    z.object({ index: NonNegInt, flagged: z.boolean().optional() }),
    FlaggedEntrySchema,
  ),
  'ledger.log.range': rq(
    z.object({
      from: NonNegInt,
      limit: z.number().int().positive(),
      flagged: z.boolean().optional(),
    }),
    z.object({ items: z.array(FlaggedEntrySchema) }),
  ),
  'ledger.log.locate': rq(LedgerLocateRequest, LedgerLocateReply),
  'ledger.timeline': rq(LedgerTimelineRequest, LedgerTimelineReply),
  'ledger.timeline.unrecorded': rq(LedgerUnrecordedRequest, LedgerUnrecordedReply),
  'ledger.timeline.rate': rq(LedgerTimelineRateRequest, LedgerTimelineRateReply),
  'ledger.receipt.get': rq(
    z.object({ invocationId: z.string().min(1), scope: ReadScopeSchema }),
    LedgerReceiptReply,
  ),
  'ledger.invocation.begin': rq(LedgerInvocationBeginRequest, LedgerInvocationBeginReply),
  'ledger.invocation.get': rq(
    z.object({ invocationId: z.string().min(1) }),
    LedgerInvocationGetReply,
  ),
  'ledger.invocation.end': rq(LedgerInvocationEndRequest, z.object({ ended: z.boolean() })),
  'ledger.registry.get': rq(z.object({ name: z.string().min(1) }), LedgerRegistryReply),
  'ledger.registry.publish': rq(LedgerRegistryPublishRequest, LedgerRegistryReply),
  'ledger.health': rq(Empty, Health),
  'ledger.tlog.checkpoint': rq(Empty, CheckpointReply),
  'ledger.tlog.key': rq(Empty, LogKeyReply),
  'ledger.tlog.inclusion': rq(z.object({ index: NonNegInt, size: NonNegInt }), InclusionProofReply),
  'ledger.tlog.consistency': rq(
    z.object({ from: NonNegInt, to: NonNegInt }),
    ConsistencyProofReply,
  ),
  'ledger.committed': ev(LedgerCommittedEvent, true),

  'broker.session.mint': rq(SessionMintRequest, SessionMintReply),
  'broker.session.resolve': rq(z.object({ credentialId: CredentialIdSchema }), SessionResolveReply),
  'broker.session.revoke': rq(
    z.object({ credentialId: CredentialIdSchema }),
    z.object({ revoked: z.boolean() }),
  ),
  'broker.session.list': rq(
    z.object({ episodeId: EpisodeIdSchema.optional() }),
    z.object({ items: z.array(SessionInfoSchema) }),
  ),
  'broker.session.revoked': ev(z.object({ credentialId: CredentialIdSchema }), true),
  /**
   * Marks a workbench login ticket's nonce exchanged (kept until `expiresAt`): `consumed` is true
   * for the one call that exchanged it first, across every gateway replica.
   */
  'broker.workbench.ticket.consume': rq(
    z.object({ nonce: z.string().regex(/^[0-9a-f]{32}$/), expiresAt: EpochMs }),
    z.object({ consumed: z.boolean() }),
  ),
  'broker.episode.create': rq(EpisodeCreateRequest, EpisodeReply),
  'broker.episode.get': rq(z.object({ episodeId: EpisodeIdSchema }), EpisodeReply),
  'broker.episode.acquire': rq(LeaseAcquireRequest, LeaseReply),
  'broker.episode.renew': rq(LeaseRenewRequest, z.object({ expiresAt: EpochMs })),
  'broker.episode.release': rq(LeaseReleaseRequest, z.object({ released: z.boolean() })),
  /** the planner's release of a call's lease once the call answered: one-way, one replica */
  'broker.episode.releaseAsync': ev(LeaseReleaseRequest, false),
  'broker.episode.spend': rq(EpisodeSpendRequest, EpisodeSpendReply),
  'broker.effect.execute': rq(EffectExecuteRequest, EffectExecuteReply),
  'broker.effect.byInvocation': rq(
    z.object({ invocationId: z.string().min(1) }),
    EffectsByInvocationReply,
  ),
  'broker.object.get': rq(ObjectGetRequest, ObjectReplySchema),
  'broker.recovery': ev(RecoveryReportEvent, true),
  'broker.health': rq(Empty, Health),

  'planner.tools.list': rq(ToolsListRequest, ToolsListReply),
  /** acknowledged with its receipt when the caller asks for one (keyed calls: invoke-planner.ts) */
  'planner.invoke': rr(InvokeRequest, InvokeReply, InvokeReceipt),
  'planner.health': rq(Empty, Health),
  'planner.info': rq(Empty, PlannerInfoReply),
  /** addressed to one planner instance: sent on callerSubject(caller), never on this name */
  'planner.alive': rq(PlannerAliveRequest, PlannerAliveReply),
  /**
   * a client cancelled the call it started with this callId (gateway, MCP cancellation): every
   * planner replica hears it, the one running the call stops it if it is not yet handed off
   */
  'planner.call.cancelled': ev(z.object({ callId: CallIdSchema }), true),

  // every replica of each service answers its survey subject (replicas.ts)
  'gateway.replicas': sv(Empty, ReplicaReportSchema),
  'planner.replicas': sv(Empty, ReplicaReportSchema),
  'broker.replicas': sv(Empty, ReplicaReportSchema),
  'ledger.replicas': sv(Empty, ReplicaReportSchema),
} as const satisfies Record<string, SubjectContract>;

export type SubjectName = keyof typeof CONTRACTS;
export type RequestSubject = {
  [K in SubjectName]: (typeof CONTRACTS)[K]['kind'] extends 'request' ? K : never;
}[SubjectName];
export type EventSubject = Exclude<SubjectName, RequestSubject>;
/** The request subjects every replica answers (`survey: true`). */
export type SurveySubject = {
  [K in SubjectName]: (typeof CONTRACTS)[K] extends { survey: true } ? K : never;
}[SubjectName];
/** What a caller sends (before defaults are applied). */
export type RequestOf<S extends SubjectName> = z.input<(typeof CONTRACTS)[S]['request']>;
/** What a handler receives after parsing. */
export type ParsedRequestOf<S extends SubjectName> = z.output<(typeof CONTRACTS)[S]['request']>;
export type ReplyOf<S extends SubjectName> = z.output<(typeof CONTRACTS)[S]['reply']>;
/** The request subjects whose taker can acknowledge them with a receipt (`receipt` in CONTRACTS). */
export type ReceiptSubject = {
  [K in SubjectName]: (typeof CONTRACTS)[K] extends { receipt: z.ZodType } ? K : never;
}[SubjectName];
/** The receipt a subject's taker sends (never for a subject without one). */
export type ReceiptOf<S extends SubjectName> = (typeof CONTRACTS)[S] extends {
  receipt: infer R extends z.ZodType;
}
  ? z.output<R>
  : never;

/**
 * The service that owns (answers) a subject: its first segment.
 * @internal exported for parse.spec.ts
 */
export function ownerOf(subject: SubjectName): 'ledger' | 'broker' | 'planner' | 'gateway' {
  return subject.slice(0, subject.indexOf('.')) as 'ledger' | 'broker' | 'planner' | 'gateway';
}

/** The subject on the wire: `<prefix>.<name>`. */
export function wireSubject(prefix: string, subject: SubjectName): string {
  return `${prefix}.${subject}`;
}

export { EffectRecordSchema };
