/**
 * `world proof <target> > bundle` and `world verify --bundle FILE --key VKEY` (README "Verifying
 * the log"): an offline proof that one log entry is in the log — the entry, the objects it names,
 * and a C2SP tlog-proof (its inclusion proof in a signed checkpoint, the checkpoint note verbatim)
 * — verified later with nothing but the log's verifier key.
 */
import { readFile } from 'node:fs/promises';
import { entryBytes, entryHash, refOf, type LogEntry, type Ref } from '@world/canonical';
import {
  formatTlogProof,
  leafHash,
  openCheckpoint,
  parseTlogProof,
  parseVerifierKey,
  verifyTlogProof,
} from '@world/tlog';
import { jsonOf, type Provenance } from '@world/why';
import type { Output } from '../operator.js';
import { CliError } from '../util.js';
import { checkLine, checksSummary, keyCheck, readKeyText, type Check } from './checks.js';
import type { LogReads } from './log-reads.js';

/** The bundle's format tag. */
const BUNDLE_FORMAT = 'world/log-proof-bundle/v1';

/** An offline proof bundle (JSON). */
export interface ProofBundle {
  format: typeof BUNDLE_FORMAT;
  /** the log entry, as GET /v1/log/{index} serves it */
  entry: LogEntry;
  /** the objects the entry names (its transition record and the refs the record names) */
  objects: Array<{ hash: string; semanticId: string; provenance: string; payload: string }>;
  /** a C2SP tlog-proof of the entry's leaf in the signed checkpoint it carries */
  tlogProof: string;
}

const REF = /^sha256:[0-9a-f]{64}$/;

/**
 * Builds the bundle of entry `index`: reads it, its objects, the latest checkpoint (verified with
 * the published key) and the inclusion proof at that checkpoint's size.
 * @throws CliError exit 1 when the entry is absent, exit 3 when what the gateway serves does not verify
 */
export async function buildBundle(
  index: number,
  provenance: Provenance,
  reads: LogReads,
): Promise<ProofBundle> {
  const entry = await provenance.entry(index);
  if (entry === null) throw new CliError(`log entry ${index} not found`, 1);
  const refs: string[] = [entry.transitionRef];
  const objects: ProofBundle['objects'] = [];
  for (let i = 0; i < refs.length; i++) {
    const o = await provenance.object(refs[i]! as Ref);
    if (o === null || o.corrupt !== undefined) continue;
    objects.push({
      hash: o.hash,
      semanticId: o.semanticId,
      provenance: o.provenance,
      payload: o.payload.toString('base64'),
    });
    const body = jsonOf(o.payload);
    if (i === 0 && body !== null && typeof body === 'object')
      for (const v of Object.values(body as Record<string, unknown>))
        if (typeof v === 'string' && REF.test(v) && !refs.includes(v)) refs.push(v);
  }
  const verifier = parseVerifierKey(await reads.key());
  const note = await reads.checkpoint();
  const { checkpoint } = openCheckpoint(note, verifier);
  const proof = await reads.inclusion(index, checkpoint.size);
  const tlogProof = formatTlogProof({ index, proof: proof.hashes, checkpoint: note });
  try {
    verifyTlogProof(tlogProof, leafHash(entryBytes(entry.header, entry.transitionRef)), verifier);
  } catch (err) {
    throw new CliError(
      `the gateway's inclusion proof of entry ${index} does not verify: ${(err as Error).message}`,
      3,
    );
  }
  return { format: BUNDLE_FORMAT, entry, objects, tlogProof };
}

/**
 * Verifies a bundle offline and prints one line per check.
 * @returns 0 when every check holds, 3 when any fails
 * @throws CliError exit 2 when the file or key cannot be read or the file is not a bundle
 */
export async function verifyBundle(file: string, keyFile: string, io: Output): Promise<number> {
  const text = await readFile(file, 'utf8').catch((err: Error) =>
    Promise.reject(new CliError(`--bundle ${file}: ${err.message}`, 2)),
  );
  let bundle: ProofBundle;
  try {
    bundle = JSON.parse(text) as ProofBundle;
  } catch {
    throw new CliError(`--bundle ${file}: not JSON`, 2);
  }
  if (
    bundle?.format !== BUNDLE_FORMAT ||
    typeof bundle.tlogProof !== 'string' ||
    bundle.entry?.header === undefined
  )
    throw new CliError(`--bundle ${file}: not a ${BUNDLE_FORMAT} bundle`, 2);
  const checks: Check[] = [];
  const print = (c: Check) => {
    checks.push(c);
    io.out(checkLine(c));
  };
  const { entry } = bundle;
  const index = entry.header.entryIndex;
  io.out(`verify: bundle ${file} (entry ${index})`);
  const key = keyCheck(await readKeyText(keyFile), keyFile);
  print(key.check);
  const recomputed = entryHash(entry.header, entry.transitionRef);
  print(
    recomputed === entry.entryHash
      ? {
          ok: true,
          name: 'entry',
          detail: `entry ${index} hashes to its entry hash ${entry.entryHash}`,
        }
      : {
          ok: false,
          name: 'entry',
          detail: `entry ${index} hashes to ${recomputed}, not ${entry.entryHash}`,
        },
  );
  const bad = bundle.objects.filter((o) => refOf(Buffer.from(o.payload, 'base64')) !== o.hash);
  const hasRecord = bundle.objects.some((o) => o.hash === entry.transitionRef);
  print(
    bad.length === 0 && hasRecord
      ? {
          ok: true,
          name: 'objects',
          detail: `${bundle.objects.length} object(s) hash to their refs, the transition record included`,
        }
      : {
          ok: false,
          name: 'objects',
          detail:
            bad.length > 0
              ? `${bad.map((o) => o.hash).join(', ')} do not hash to their refs`
              : `the transition record ${entry.transitionRef} is missing`,
        },
  );
  if (key.verifier !== null) {
    try {
      const parsed = parseTlogProof(bundle.tlogProof);
      if (parsed.index !== index)
        throw new Error(`the tlog-proof is for index ${parsed.index}, not entry ${index}`);
      const { checkpoint } = verifyTlogProof(
        bundle.tlogProof,
        leafHash(entryBytes(entry.header, entry.transitionRef)),
        key.verifier,
      );
      print({
        ok: true,
        name: 'inclusion',
        detail: `entry ${index} ∈ signed checkpoint ${checkpoint.size} (${checkpoint.origin})`,
      });
    } catch (err) {
      print({ ok: false, name: 'inclusion', detail: (err as Error).message });
    }
  }
  io.out(checksSummary(checks));
  return checks.every((c) => c.ok) ? 0 : 3;
}
