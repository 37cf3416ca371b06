/**
 * The inclusion link of `world why` (RFC 9162 §2.1.3): the entry is a leaf of the log's latest
 * signed checkpoint — its leaf hash (recomputed from the entry's own bytes), the inclusion proof
 * the gateway serves and the checkpoint's signature by the published key all verify.
 */
import { entryBytes } from '@world/canonical';
import { leafHash, openCheckpoint, parseVerifierKey, verifyInclusion } from '@world/tlog';
import type { Link, Provenance } from '@world/why';
import type { LogReads } from './log-reads.js';

/**
 * Checks entry `index` against the latest signed checkpoint.
 * @returns the `log` link: ✓ `entry I ∈ signed checkpoint N (origin)`, or ✗ naming what failed
 */
export async function logLink(
  index: number,
  provenance: Provenance,
  reads: LogReads,
): Promise<Link> {
  const entry = await provenance.entry(index);
  if (entry === null)
    return { name: 'log', ok: false, ref: '', detail: `log entry ${index} not found` };
  const ref = entry.entryHash;
  try {
    const verifier = parseVerifierKey(await reads.key());
    const { checkpoint } = openCheckpoint(await reads.checkpoint(), verifier);
    const proof = await reads.inclusion(index, checkpoint.size);
    verifyInclusion(
      leafHash(entryBytes(entry.header, entry.transitionRef)),
      index,
      checkpoint.size,
      proof.hashes,
      checkpoint.rootHash,
    );
    return {
      name: 'log',
      ok: true,
      ref,
      detail: `entry ${index} ∈ signed checkpoint ${checkpoint.size} (${checkpoint.origin})`,
    };
  } catch (err) {
    return {
      name: 'log',
      ok: false,
      ref,
      detail: `not proven in the signed log: ${(err as Error).message}`,
    };
  }
}
