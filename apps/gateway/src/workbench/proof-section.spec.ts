import { entryBytes, type LogEntry } from '@world/canonical';
import {
  formatKeyId,
  generateNoteKey,
  leafHash,
  nodeHash,
  parseSignerKey,
  parseVerifierKey,
  signCheckpoint,
} from '@world/tlog';
import { checkProof, proofSection, type LogProofReads } from './proof-section.js';

const ORIGIN = 'world.test/log';
const ref = (c: string) => `sha256:${c.repeat(64)}` as const;

/** Entry #i with a header of its own (the leaf bytes differ per index). */
function entry(i: number): LogEntry {
  return {
    header: {
      entryIndex: i,
      semanticsEpoch: 1,
      transitionFn: ref('a'),
      interpreter: ref('b'),
      prevEntryHash: ref(String(i)),
      writtenBy: 'test',
    },
    entryHash: ref('c'),
    transitionRef: ref('d'),
  };
}
const leaf = (i: number) => leafHash(entryBytes(entry(i).header, entry(i).transitionRef));
const b64 = (b: Buffer) => b.toString('base64');
const id = (vkey: string) => formatKeyId(parseVerifierKey(vkey).keyId);

/** A real two-leaf log (entries 0 and 1) signed by `skey`, published under `vkey`. */
function log(skey: string, vkey: string): LogProofReads {
  const root = nodeHash(leaf(0), leaf(1));
  const note = signCheckpoint(
    { origin: ORIGIN, size: 2, rootHash: root, extensions: [] },
    parseSignerKey(skey),
  );
  return {
    key: async () => `${vkey}\n`,
    checkpoint: async () => note,
    inclusion: async (index, size) => ({
      index,
      size,
      leafHash: b64(leaf(index)),
      rootHash: b64(root),
      hashes: [b64(leaf(1 - index))],
    }),
  };
}

describe('the entry page proof section (README "Verifying the log", DESIGN.md §5a)', () => {
  const key = generateNoteKey(ORIGIN);

  it('verifies the checkpoint signature and the inclusion proof recomputed from the entry bytes', async () => {
    const view = await checkProof(log(key.skey, key.vkey), entry(0));
    expect(view.kind === 'checked' && [view.signature, view.inclusion?.verdict]).toEqual([
      { ok: true },
      { ok: true },
    ]);
  });

  it('marks ✗ an entry whose bytes are not the leaf the proof starts from', async () => {
    const other = { ...entry(0), header: { ...entry(0).header, writtenBy: 'forged' } };
    const view = await checkProof(log(key.skey, key.vkey), other);
    const computed = nodeHash(leafHash(entryBytes(other.header, other.transitionRef)), leaf(1));
    const root = nodeHash(leaf(0), leaf(1));
    expect(view.kind === 'checked' && view.inclusion?.verdict).toEqual({
      ok: false,
      reason: `inclusion proof for index 0 computes root ${b64(computed)}, not the tree's root ${b64(root)}`,
    });
  });

  it('marks ✗ a checkpoint not signed by the published key, still showing what it states', async () => {
    const other = generateNoteKey(ORIGIN);
    const view = await checkProof(log(other.skey, key.vkey), entry(0));
    expect(view.kind).toBe('checked');
    if (view.kind !== 'checked') return;
    expect([view.checkpoint.origin, view.checkpoint.size, view.signature]).toEqual([
      ORIGIN,
      2,
      {
        ok: false,
        reason: `the note is signed by ${ORIGIN}+${id(other.vkey)}, not by the known key ${ORIGIN}+${id(key.vkey)}`,
      },
    ]);
  });

  it('names a stop for an entry newer than the last signed checkpoint', async () => {
    const view = await checkProof(log(key.skey, key.vkey), entry(2));
    expect(view.kind === 'checked' && [view.signature, view.inclusion]).toEqual([
      { ok: true },
      null,
    ]);
    const text = proofSection(view, 2).text.replace(/\s+/g, ' ');
    expect(text).toContain(
      '<p class="stop" role="alert"> <span class="bad">✗</span> stop: entry 2 is newer than the last signed checkpoint (size 2); the next checkpoint covers it </p>',
    );
  });

  it('names a stop when no checkpoint can be read', async () => {
    const reads = { ...log(key.skey, key.vkey), checkpoint: async () => 'not a note\n' };
    expect(await checkProof(reads, entry(0))).toEqual({
      kind: 'stop',
      reason:
        'no signed checkpoint: note has no signature block: its text must be followed by a blank line and signature lines',
    });
  });
});
