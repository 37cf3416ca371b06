import { Inject, Injectable } from '@nestjs/common';
import { decodeBase64, refProblem } from '@world/canonical';
import {
  CommitUncertainError,
  EntryHeaderSchema,
  LedgerRestCommitRequest,
  LogEntrySchema,
  REPLY_GRACE_MS,
  REST_COMMIT_MS,
  REST_INVOCATION_ID,
  TransportTimeoutError,
  WireObjectSchema,
  WorldSchema,
  z,
  type CommitAuthor,
} from '@world/contracts';
import { RPC, type RpcClient } from '@world/runtime';
import { parseBody } from '../http/validation.js';

/** The 503 text when the ledger's answer did not arrive: the commit may have landed. */
const COMMIT_UNCERTAIN_MESSAGE =
  'commit outcome is not confirmed; reconcile with GET /v1/receipts/<id> or GET /v1/log/<entryIndex> before resending';

const Base64 = z.string().refine(
  (text) => {
    try {
      decodeBase64(text);
      return true;
    } catch {
      return false;
    }
  },
  { message: 'must be standard base64 with padding' },
);

const ObservedHead = z.string().superRefine((text, ctx) => {
  // Exactly one field gets genesis lenience: "" means "no head yet" (world-internals §12 #23).
  if (text === '') return;
  const problem = refProblem(text);
  if (problem !== null) ctx.addIssue({ code: 'custom', message: `ref ${problem}` });
});

/**
 * The body of POST /v1/commit: the ledger's REST commit request without its author (the
 * gateway states that from the credential), held to the edge's stricter reading — exactly these
 * fields, nothing unknown at any level (world-spec §5.10: "DisallowUnknownFields"), every ref
 * strict, payloads standard base64, observedHead '' or a ref.
 */
const CommitBodySchema = LedgerRestCommitRequest.omit({ author: true })
  .extend({
    invocationId: z
      .string()
      .regex(REST_INVOCATION_ID, 'must be rest:<id> with 1-128 of [A-Za-z0-9._:-] after the prefix')
      .optional(),
    observedHead: ObservedHead,
    objects: z.array(WireObjectSchema.extend({ payload: Base64 }).strict()),
    nextWorld: WorldSchema.strict(),
    entry: LogEntrySchema.extend({ header: EntryHeaderSchema.strict() }).strict(),
  })
  .strict();

/** The one REST mutation, POST /v1/commit (world-spec §5.10). */
@Injectable()
export class CommitWorld {
  constructor(@Inject(RPC) private readonly rpc: RpcClient) {}

  /**
   * POST /v1/commit: compare-and-append of a client-built world transition through
   * `ledger.restCommit` (world-spec §5.10, DESIGN.md §7.1–7.2). The ledger checks hashes, density,
   * linkage and authorship (the commit names `author`, DESIGN.md §3); a ledger answer that never
   * arrives means the commit may have landed.
   * @param author who commits, from the credential (Authenticator.committer)
   * @param body the parsed JSON object
   * @returns `{selectedHead}`
   * @throws BadRequestError naming the first problem; the ledger's HeadConflictError (409),
   * BadRequestError (hash mismatch, id reuse), DeadlineExceededError (503 Timeout, not committed);
   * CommitUncertainError when its answer did not arrive
   */
  async execute(
    author: CommitAuthor,
    body: Record<string, unknown>,
  ): Promise<{ selectedHead: string }> {
    const request = parseBody(CommitBodySchema, body);
    try {
      const reply = await this.rpc.request(
        'ledger.restCommit',
        { author, ...request },
        {
          timeoutMs: REST_COMMIT_MS + REPLY_GRACE_MS,
        },
      );
      return { selectedHead: reply.selectedHead };
    } catch (err) {
      if (err instanceof TransportTimeoutError)
        throw new CommitUncertainError(COMMIT_UNCERTAIN_MESSAGE);
      throw err;
    }
  }
}
