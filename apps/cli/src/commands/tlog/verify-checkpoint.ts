/**
 * `world verify --checkpoint OLD… [--key FILE]` (RFC 9162 §2.1.4): checks that the live log
 * is consistent with checkpoints saved earlier — a rewritten or forked history fails — and that
 * every signature verifies with the log's key (published, or --key). One line per check; the
 * smallest saved size that the live log no longer matches is named.
 */
import { readFile } from 'node:fs/promises';
import {
  openCheckpoint,
  sameHash,
  verifyConsistency,
  type Checkpoint,
  type NoteVerifier,
} from '@world/tlog';
import type { Output } from '../operator.js';
import { CliError } from '../util.js';
import { checkLine, checksSummary, keyCheck, readKeyText, type Check } from './checks.js';
import type { LogReads } from './log-reads.js';

const b64 = (h: Uint8Array) => Buffer.from(h).toString('base64');

/** Opens a checkpoint note as a check. */
function opened(
  name: string,
  note: string,
  verifier: NoteVerifier,
  what: string,
): { check: Check; checkpoint: Checkpoint | null } {
  try {
    const { checkpoint } = openCheckpoint(note, verifier, verifier.name);
    return {
      check: {
        ok: true,
        name,
        detail: `${what}: size ${checkpoint.size}, root ${b64(checkpoint.rootHash)}, signed by ${verifier.name}`,
      },
      checkpoint,
    };
  } catch (err) {
    return {
      check: { ok: false, name, detail: `${what}: ${(err as Error).message}` },
      checkpoint: null,
    };
  }
}

/** The live log against one saved checkpoint: sizes, the root at the saved size, the proof. */
async function consistent(reads: LogReads, saved: Checkpoint, live: Checkpoint): Promise<Check> {
  const name = 'consistent';
  const m = saved.size;
  const n = live.size;
  if (m > n)
    return {
      ok: false,
      name,
      detail: `the live log's tree size ${n} is smaller than the saved checkpoint's size ${m}: the log was truncated or forked`,
    };
  const proof = await reads.consistency(m, n);
  if (!sameHash(proof.toRoot, live.rootHash))
    return {
      ok: false,
      name,
      detail: `the gateway's root at size ${n} is not the signed live checkpoint's root`,
    };
  if (!sameHash(proof.fromRoot, saved.rootHash))
    return {
      ok: false,
      name,
      detail: `the live log's root at size ${m} is ${b64(proof.fromRoot)}, not the saved checkpoint's ${b64(saved.rootHash)}: history up to size ${m} was rewritten`,
    };
  try {
    verifyConsistency(m, n, saved.rootHash, live.rootHash, proof.hashes);
  } catch (err) {
    return { ok: false, name, detail: (err as Error).message };
  }
  return {
    ok: true,
    name,
    detail: `size ${m} → ${n}: the live log extends the saved checkpoint (RFC 9162 §2.1.4)`,
  };
}

/**
 * Runs the checks and prints them.
 * @returns 0 when every check holds, 3 when any fails
 * @throws CliError exit 2 when a checkpoint or key file cannot be read
 */
export async function verifyCheckpoints(
  files: string[],
  keyFile: string | undefined,
  reads: LogReads,
  io: Output,
): Promise<number> {
  const checks: Check[] = [];
  const print = (c: Check) => {
    checks.push(c);
    io.out(checkLine(c));
  };
  io.out(`verify: the live log against ${files.join(', ')}`);
  const notes = await Promise.all(
    files.map((f) =>
      readFile(f, 'utf8').catch((err: Error) =>
        Promise.reject(new CliError(`--checkpoint ${f}: ${err.message}`, 2)),
      ),
    ),
  );
  const key =
    keyFile === undefined
      ? keyCheck(await reads.key(), 'published at /.well-known/world-log-key')
      : keyCheck(await readKeyText(keyFile), keyFile);
  print(key.check);
  if (key.verifier === null) return finish(checks, io, null);
  const live = opened('live', await reads.checkpoint(), key.verifier, 'GET /v1/checkpoint');
  print(live.check);
  const saved: Checkpoint[] = [];
  files.forEach((file, i) => {
    const s = opened('saved', notes[i]!, key.verifier!, file);
    print(s.check);
    if (s.checkpoint !== null) saved.push(s.checkpoint);
  });
  if (live.checkpoint === null) return finish(checks, io, null);
  let firstBad: number | null = null;
  for (const s of saved.sort((a, b) => a.size - b.size)) {
    const c = await consistent(reads, s, live.checkpoint);
    print(c);
    if (!c.ok && firstBad === null) firstBad = s.size;
  }
  return finish(checks, io, firstBad);
}

function finish(checks: Check[], io: Output, firstBad: number | null): number {
  io.out(checksSummary(checks));
  if (firstBad !== null) io.out(`first size that does not match: ${firstBad}`);
  return checks.every((c) => c.ok) ? 0 : 3;
}
