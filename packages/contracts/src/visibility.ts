/**
 * Who may read and write what (DESIGN.md §3 "Who may read and write what"; README "Who reads
 * what"). A read states the scope of its caller; each kind of stored data is either part of the
 * shared skeleton the hash chain needs (readable by every caller) or belongs to the episode that
 * produced it. The services own the facts (which episode produced a row); this module owns the
 * rule.
 */
import { z } from 'zod';
import { EpisodeIdSchema, RefSchema } from './schemas.js';

/**
 * The scope a read runs in: everything (the operator credential, or WORLD_PUBLIC_READS) or one
 * episode (a session).
 */
export const ReadScopeSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('all') }),
  z.object({ kind: z.literal('episode'), episodeId: EpisodeIdSchema }),
]);
export type ReadScope = z.infer<typeof ReadScopeSchema>;

/** The scope that reads everything. */
export const READ_ALL: ReadScope = { kind: 'all' };

/** The kinds of stored data a read serves. */
export type ReadResource =
  /** log entries: the frozen header, entry hash and transition ref */
  | 'entry'
  /** world rows: revision, stateRoot ref, logHead ref */
  | 'world'
  /** the selected head's world ref */
  | 'head'
  /** registry heads: a name and the ref it points at */
  | 'registry'
  /** content-addressed objects: envelope and payload */
  | 'object'
  /** receipts of `rest:` commits */
  | 'receipt'
  /** an episode's grants, spend, lease and indeterminate intents (broker.episode.spend) */
  | 'spend';

/**
 * Which kinds are the shared skeleton (hashes and headers only: every caller needs them to link
 * and check the chain) and which belong to the episode that produced them (they carry what its
 * calls read and wrote). A kind added later (Merkle tree, checkpoints) is one row here.
 */
const VISIBILITY: Readonly<Record<ReadResource, 'skeleton' | 'episode'>> = {
  entry: 'skeleton',
  world: 'skeleton',
  head: 'skeleton',
  registry: 'skeleton',
  object: 'episode',
  receipt: 'episode',
  spend: 'episode',
};

/**
 * The visibility rule: the episode a read of `resource` is confined to, or null when the caller
 * may read all of it. Confined reads serve only rows the episode produced (and, for objects, the
 * ones published to everyone: registry archives and genesis); anything else is 404 to them.
 * Source: DESIGN.md §3 "Who may read and write what", §7.5.
 */
export function confinementOf(scope: ReadScope, resource: ReadResource): string | null {
  if (scope.kind === 'all' || VISIBILITY[resource] === 'skeleton') return null;
  return scope.episodeId;
}

/**
 * One object by ref, read in the caller's scope (DESIGN.md §3): an object the scope may not read
 * is NotFound, like an absent one.
 */
export const ObjectGetRequest = z.object({
  ref: RefSchema,
  payload: z.boolean(),
  scope: ReadScopeSchema,
});

/**
 * Who makes a REST commit (POST /v1/commit): the operator, or a session of one episode. The
 * ledger holds the commit to it (its writtenBy, invocation id and objects name this committer).
 */
export const CommitAuthorSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('operator') }),
  z.object({ kind: z.literal('episode'), episodeId: EpisodeIdSchema }),
]);
export type CommitAuthor = z.infer<typeof CommitAuthorSchema>;

/**
 * The grant a session needs to make REST commits (DESIGN.md §3): `World.Commit=log:N` with N ≥ 1.
 * REST commits do not spend it; a budget of 0 withholds the right.
 */
export const REST_COMMIT_GRANT = { effect: 'World.Commit', scope: 'log' } as const;
