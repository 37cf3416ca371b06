/**
 * The Entry page's verifiable-log section (README "Verifying the log"; DESIGN.md §5a): the latest
 * signed checkpoint, its signature verified on the server against the published log key, and the
 * entry's RFC 9162 inclusion proof in that checkpoint, verified by recomputing the root from the
 * entry's own bytes (never from the leaf hash the ledger serves). Tree hashes and checkpoints are
 * the log's skeleton, visible to every session (contracts visibility.ts). The checks are
 * @world/tlog's, the same ones `world why`'s `log` link runs
 * (@world/why log-link.ts).
 */
import { decodeBase64, entryBytes } from '@world/canonical';
import type { ReplyOf } from '@world/contracts';
import {
  leafHash,
  openCheckpoint,
  parseCheckpoint,
  parseNote,
  parseVerifierKey,
  verifyInclusion,
  type Checkpoint,
} from '@world/tlog';
import type { LogEntry } from '@world/why';
import { html, type Html } from './html.js';

/** The log reads the section needs (the gateway's read-tlog.ts over the ledger). */
export interface LogProofReads {
  /** the C2SP signed-note verifier key line */
  key(): Promise<string>;
  /** the latest signed checkpoint note, verbatim */
  checkpoint(): Promise<string>;
  /** the audit path of leaf `index` in the tree of `size` leaves */
  inclusion(index: number, size: number): Promise<ReplyOf<'ledger.tlog.inclusion'>>;
}

/** A check's outcome: ✓, or ✗ with why. */
type Verdict = { ok: true } | { ok: false; reason: string };

/** What the section shows, each part verified independently. */
export type ProofView =
  | { kind: 'stop'; reason: string }
  | {
      kind: 'checked';
      /** the checkpoint as its text states it (parsed even when its signature fails) */
      checkpoint: Checkpoint;
      note: string;
      signature: Verdict;
      /** null when the entry is newer than the checkpoint (a named stop) */
      inclusion: {
        proof: ReplyOf<'ledger.tlog.inclusion'>;
        verdict: Verdict;
      } | null;
    };

const message = (err: unknown) => (err as Error).message;

/** The checkpoint's signature by the log key (C2SP tlog-checkpoint, signed-note). */
function signatureOf(note: string, vkey: string): Verdict {
  try {
    openCheckpoint(note, parseVerifierKey(vkey.trim()));
    return { ok: true };
  } catch (err) {
    return { ok: false, reason: message(err) };
  }
}

/** The inclusion proof recomputed from the entry's bytes to the checkpoint's root (RFC 9162 §2.1.3.2). */
function inclusionOf(
  entry: LogEntry,
  checkpoint: Checkpoint,
  proof: ReplyOf<'ledger.tlog.inclusion'>,
): Verdict {
  try {
    verifyInclusion(
      leafHash(entryBytes(entry.header, entry.transitionRef)),
      entry.header.entryIndex,
      checkpoint.size,
      proof.hashes.map((h) => decodeBase64(h, 'tree hash')),
      checkpoint.rootHash,
    );
    return { ok: true };
  } catch (err) {
    return { ok: false, reason: message(err) };
  }
}

/**
 * Reads and verifies the checkpoint and the entry's inclusion proof.
 * @returns a stop when the checkpoint cannot be read or parsed; otherwise each check's ✓/✗, and
 *   no inclusion when the entry is at or past the checkpoint's size
 * @throws nothing of its own: a read that fails is a stop naming its error
 */
export async function checkProof(reads: LogProofReads, entry: LogEntry): Promise<ProofView> {
  let note: string;
  let vkey: string;
  let checkpoint: Checkpoint;
  try {
    [note, vkey] = await Promise.all([reads.checkpoint(), reads.key()]);
    // Parsed from the note's text so a bad signature still shows what the checkpoint claims.
    checkpoint = parseCheckpoint(parseNote(note).text);
  } catch (err) {
    return { kind: 'stop', reason: `no signed checkpoint: ${message(err)}` };
  }
  const signature = signatureOf(note, vkey);
  const index = entry.header.entryIndex;
  if (index >= checkpoint.size)
    return { kind: 'checked', checkpoint, note, signature, inclusion: null };
  let proof: ReplyOf<'ledger.tlog.inclusion'>;
  try {
    proof = await reads.inclusion(index, checkpoint.size);
  } catch (err) {
    return { kind: 'stop', reason: `no inclusion proof: ${message(err)}` };
  }
  return {
    kind: 'checked',
    checkpoint,
    note,
    signature,
    inclusion: { proof, verdict: inclusionOf(entry, checkpoint, proof) },
  };
}

function verdictHtml(v: Verdict, what: string): Html {
  return v.ok
    ? html`<span class="ok">✓</span> ${what}`
    : html`<span class="bad">✗</span> ${what}: ${v.reason}`;
}

/** The section's HTML (see the file doc). */
export function proofSection(view: ProofView, index: number): Html {
  if (view.kind === 'stop')
    return html`<section class="proof">
      <h2>inclusion proof</h2>
      <p class="stop" role="alert"><span class="bad">✗</span> stop: ${view.reason}</p>
    </section>`;
  const { checkpoint: c, signature, inclusion } = view;
  const proofHref = `/workbench/proof/inclusion?index=${index}&size=${c.size}`;
  return html`<section class="proof">
    <h2>signed checkpoint</h2>
    <dl class="checkpoint">
      <dt>origin</dt>
      <dd class="origin">${c.origin}</dd>
      <dt>size</dt>
      <dd class="size">${c.size}</dd>
      <dt>root</dt>
      <dd class="root"><code>${c.rootHash.toString('base64')}</code></dd>
      <dt>signature</dt>
      <dd class="signature">${verdictHtml(signature, 'signed by the log key')}</dd>
    </dl>
    <p><a href="/workbench/checkpoint">raw checkpoint</a></p>
    <h2>inclusion proof</h2>
    ${
      inclusion === null
        ? html`<p class="stop" role="alert">
            <span class="bad">✗</span> stop: entry ${index} is newer than the last signed checkpoint
            (size ${c.size}); the next checkpoint covers it
          </p>`
        : html`<dl class="inclusion">
              <dt>leaf index</dt>
              <dd class="leaf-index">${inclusion.proof.index}</dd>
              <dt>tree size</dt>
              <dd class="tree-size">${inclusion.proof.size}</dd>
              <dt>path</dt>
              <dd>
                <ol class="path">
                  ${inclusion.proof.hashes.map((h) => html`<li><code>${h}</code></li>`)}
                </ol>
              </dd>
              <dt>verified</dt>
              <dd class="verified">
                ${verdictHtml(inclusion.verdict, `root recomputed from entry ${index}'s bytes`)}
              </dd>
            </dl>
            <p><a href="${proofHref}">raw proof JSON</a></p>`
    }
  </section>`;
}
