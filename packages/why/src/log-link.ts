/**
 * The inclusion link of `world why` (RFC 9162 §2.1.3): the entry is a leaf of the log's latest
 * signed checkpoint — its leaf hash (recomputed from the entry's own bytes), the inclusion proof
 * the gateway serves and the checkpoint's signature by the published key all verify.
 */
import { entryBytes } from '@world/canonical';
import { leafHash, openCheckpoint, parseVerifierKey, verifyInclusion } from '@world/tlog';
import type { Link } from './link.js';
import type { Provenance } from './reads.js';
import { walk, type WalkStart } from './walk.js';

/** The transparency-log reads of the inclusion link (the log's skeleton, public to every caller). */
export interface LogLinkReads {
  /** the C2SP signed-note verifier key line */
  key(): Promise<string>;
  /** the latest signed checkpoint note, verbatim */
  checkpoint(): Promise<string>;
  /** the audit path of leaf `index` in the tree of `size` leaves, hashes decoded */
  inclusion(index: number, size: number): Promise<{ hashes: readonly Uint8Array[] }>;
}

/**
 * Checks entry `index` against the latest signed checkpoint.
 * @returns the `log` link: ✓ `entry I ∈ signed checkpoint N (origin)`, or ✗ naming what failed
 */
async function logLink(index: number, provenance: Provenance, reads: LogLinkReads): Promise<Link> {
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

/**
 * The whole walk of `world why` (world-spec §7.3): every link of the invocation (walk), then the
 * inclusion link — what the CLI prints and the workbench's Why page shows, link by link.
 * @returns the links in print order, or null when the entry does not exist
 * @throws the reads' errors (unreachable gateway, refused credential)
 */
export async function walkWithLog(
  reads: Provenance,
  log: LogLinkReads,
  start: WalkStart,
): Promise<Link[] | null> {
  const walked = await walk(reads, start);
  if (walked === null) return null;
  // A refused entry is a stop: its bytes are not served, so no leaf can be recomputed.
  if (walked.length === 1 && walked[0]!.name === 'entry' && walked[0]!.ok === false) return walked;
  return [...walked, await logLink(start.index, reads, log)];
}
