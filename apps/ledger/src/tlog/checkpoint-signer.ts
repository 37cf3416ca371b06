/**
 * Signs the log's checkpoints (C2SP tlog-checkpoint, signed-note
 * with Ed25519): at most once every `intervalMs`, after commits and on request, always for the
 * selected head's tree. Before it signs a size it checks that the stored tree is one tree — the
 * head's compact range is the stored border nodes — and that it extends the last signed
 * checkpoint (RFC 9162 §2.1.4 consistency proof from stored nodes, verified). When either fails,
 * it signs nothing and trips the TreeGuard: this key never signs two inconsistent checkpoints,
 * and the replica refuses every later append.
 */
import {
  consistencyProof,
  openCheckpoint,
  parseVerifierKey,
  rootAt,
  rootOfState,
  sameHash,
  signCheckpoint,
  verifyConsistency,
  type NoteSigner,
  type NoteVerifier,
} from '@world/tlog';
import { serviceLogger } from '@world/runtime';
import { LEDGER_SERVICE } from '../constants.js';
import type { TreeGuard } from '../commit/tree-guard.js';
import type { TreeRepository } from './tree.repository.js';

const log = serviceLogger(LEDGER_SERVICE);

/** Default minimum time between two signings (WORLD_CHECKPOINT_INTERVAL_MS). */
const CHECKPOINT_INTERVAL_MS = 1000;

/** A signed checkpoint and what it states. */
export interface SignedCheckpoint {
  note: string;
  origin: string;
  size: number;
  rootHash: Buffer;
}

/** One replica's checkpoint signer (see the file doc). */
export class CheckpointSigner {
  private last: SignedCheckpoint | null = null;
  private pending: Promise<SignedCheckpoint> | null = null;
  private lastSignedAt = 0;
  private readonly verifier: NoteVerifier;

  constructor(
    private readonly tree: TreeRepository,
    private readonly signer: NoteSigner,
    private readonly guard: TreeGuard,
    private readonly intervalMs = CHECKPOINT_INTERVAL_MS,
  ) {
    this.verifier = parseVerifierKey(signer.vkey);
  }

  /** The verifier key to publish (C2SP signed-note vkey). */
  get vkey(): string {
    return this.signer.vkey;
  }

  /** The log's origin line (the key's name). */
  get origin(): string {
    return this.signer.name;
  }

  /** After a commit: a checkpoint of the new head is signed within intervalMs (never throws). */
  committed(): void {
    this.current().catch((err: unknown) => log.warn({ err }, 'checkpoint not signed'));
  }

  /**
   * The checkpoint of the selected head: the last one signed when the head has not moved, else
   * one signed as soon as intervalMs since the previous signing allows.
   * @throws ServiceUnavailableError when the guard is tripped (the stored tree does not extend
   *   the signed one); whatever the database throws
   */
  async current(): Promise<SignedCheckpoint> {
    for (;;) {
      const head = await this.tree.headTree();
      const last = this.last;
      if (last !== null && last.size === head.size && sameHash(last.rootHash, rootOfState(head)))
        return last;
      // A signing already under way may be of an older head: then sign again.
      this.pending ??= this.signSoon().finally(() => (this.pending = null));
      const signed = await this.pending;
      if (signed.size >= head.size) return signed;
    }
  }

  private async signSoon(): Promise<SignedCheckpoint> {
    const wait = this.lastSignedAt + this.intervalMs - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    try {
      return await this.sign();
    } finally {
      this.lastSignedAt = Date.now();
    }
  }

  /** Checks the stored tree against the last signed checkpoint, then signs the head's tree. */
  private async sign(): Promise<SignedCheckpoint> {
    this.guard.check();
    const head = await this.tree.headTree();
    const root = rootOfState(head);
    const stored = await rootAt(head.size, this.tree.getNodes);
    if (!sameHash(stored, root))
      return this.refuse(
        `the head's compact range at size ${head.size} is not the stored tree's (root ${root.toString('base64')} vs ${stored.toString('base64')})`,
      );
    const previous = await this.tree.latestCheckpoint();
    if (previous !== null) {
      let signed;
      try {
        signed = openCheckpoint(previous.note, this.verifier, this.origin).checkpoint;
      } catch (err) {
        return this.refuse(
          `the stored checkpoint of size ${previous.size} does not verify with this log's key: ${(err as Error).message}`,
        );
      }
      if (signed.size > head.size)
        return this.refuse(
          `the log has ${head.size} entries, fewer than its signed checkpoint of size ${signed.size}`,
        );
      try {
        const proof = await consistencyProof(signed.size, head.size, this.tree.getNodes);
        verifyConsistency(signed.size, head.size, signed.rootHash, root, proof);
      } catch (err) {
        return this.refuse(
          `the stored tree of size ${head.size} does not extend the signed checkpoint of size ${signed.size}: ${(err as Error).message}`,
        );
      }
    }
    const note = signCheckpoint(
      { origin: this.origin, size: head.size, rootHash: root, extensions: [] },
      this.signer,
    );
    await this.tree.saveCheckpoint({ size: head.size, rootHash: root, note });
    const checkpoint = { note, origin: this.origin, size: head.size, rootHash: root };
    if (this.last === null || checkpoint.size >= this.last.size) this.last = checkpoint;
    return checkpoint;
  }

  private refuse(reason: string): never {
    this.guard.trip(reason);
    log.error({ reason }, 'the log does not extend its signed tree: appends are refused');
    this.guard.check();
    throw new Error(reason); // unreachable: check() throws once tripped
  }
}
