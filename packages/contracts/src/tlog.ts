/**
 * The transparency-log subjects' schemas (README "Verifying the log"): the signed checkpoint, the
 * verifier key and the RFC 9162 proofs the ledger serves. Hashes travel as standard padded base64
 * (RFC 4648 §4), as C2SP tlog-checkpoint prints them; sizes and indexes are leaf counts and
 * zero-based leaf indexes (leaf i is log entry #i).
 */
import { z } from 'zod';
import { NonNegInt } from './schemas.js';

/** A 32-byte SHA-256 tree hash in standard padded base64 (44 characters). */
const TreeHashSchema = z
  .string()
  .regex(/^[A-Za-z0-9+/]{43}=$/, 'a tree hash is 32 bytes of standard padded base64');

/** The latest signed checkpoint: the C2SP signed note verbatim, and what it states. */
export const CheckpointReply = z.object({
  /** the signed note (C2SP tlog-checkpoint body + signed-note signature lines) */
  note: z.string().min(1),
  origin: z.string().min(1),
  size: NonNegInt,
  rootHash: TreeHashSchema,
});

/** The log's verifier key (C2SP signed-note vkey format) and origin line. */
export const LogKeyReply = z.object({ vkey: z.string().min(1), origin: z.string().min(1) });

/** GET /v1/proof/inclusion (RFC 9162 §2.1.3.1): the audit path of leaf `index` in tree `size`. */
export const InclusionProofReply = z.object({
  index: NonNegInt,
  size: NonNegInt,
  /** the leaf hash of entry #index: SHA-256(0x00 ‖ entry bytes) */
  leafHash: TreeHashSchema,
  /** MTH of the tree of `size` leaves */
  rootHash: TreeHashSchema,
  /** the audit path, leaf side first */
  hashes: z.array(TreeHashSchema),
});

/** GET /v1/proof/consistency (RFC 9162 §2.1.4.1): PROOF(from, D[to]) with both roots. */
export const ConsistencyProofReply = z.object({
  from: NonNegInt,
  to: NonNegInt,
  fromRoot: TreeHashSchema,
  toRoot: TreeHashSchema,
  hashes: z.array(TreeHashSchema),
});
