import { expectRefusal } from '../test/refusal.js';
import { appendLeaves, EMPTY_TREE } from './append.js';
import { signCheckpoint } from './checkpoint.js';
import {
  CheckpointOriginError,
  InclusionProofError,
  TlogProofFormatError,
  WrongKeyError,
} from './errors.js';
import { leafHash } from './hash.js';
import { generateNoteKey, parseSignerKey, parseVerifierKey } from './keys.js';
import { MemoryNodeStore } from './memory-store.js';
import { buildProof, inclusionPlan } from './proofs.js';
import { formatTlogProof, parseTlogProof, verifyTlogProof } from './tlog-proof.js';
import { rootFromInclusionProof } from './verify.js';

// The example of C2SP tlog-proof (its signatures are elided with "[...]", so only its proof part parses).
const C2SP_EXAMPLE = [
  'c2sp.org/tlog-proof@v1',
  'extra YWdlLXYxLjIuMS1kYXJ3aW4tYXJtNjQudGFyLmd6kYXJ3aW4tYXJ',
  'index 73894',
  'gSKyXoYZUgZ6jduWYrkDOARinOMGJveXjgMkBTcdPlQ=',
  'B95lDa8R83lS8n0eG+o0buTxRKQTYFi//1U8anccXmA=',
  'EKNzoDWG8LGC0Yp9o+sv3qllpMP9uHQ9B20KNL+Q1zs=',
  'RoopEkOdqkYqMB4MJXrbt/hMjOxsVn0IrWjpz1ZMMes=',
  'AHCioX9nLjsrse6YhjRRmk1WUEirVOLLRoOQ6vfO5vk=',
  '',
  'example.com/fancylog',
  '109482',
  'sFodV/vSp5O8n9a8QpW6PRY97tfOSW5bsc2Xl/EQi08=',
  '',
  '— example.com/fancylog hI2DJw[...]1roloI=',
  '— witness1.example mJirIklj[...]qY9v2B/5bg==',
  '— witness2.example TnKKVHLX[...]xwYwrSjgow==',
  '— witness3.example S4X82uH5[...]3oEcROGLFQ==',
  '',
].join('\n');

const { skey, vkey } = generateNoteKey('world.example/log');
const signer = parseSignerKey(skey);
const verifier = parseVerifierKey(vkey);
const entries = Array.from({ length: 20 }, (_, i) => Buffer.from(`entry header ${i}`));
const store = new MemoryNodeStore();
const { root, nodes } = appendLeaves(EMPTY_TREE, entries.map(leafHash));
store.add(nodes);
const checkpoint = signCheckpoint(
  { origin: 'world.example/log', size: 20, rootHash: root, extensions: [] },
  signer,
);
const proofOf = (index: number) =>
  buildProof(inclusionPlan(index, 20), store.read(inclusionPlan(index, 20).nodes));

describe('tlog-proof bundles (C2SP tlog-proof)', () => {
  it('parses the spec’s example: extra data, index, five hashes, the checkpoint verbatim', () => {
    const proof = parseTlogProof(C2SP_EXAMPLE);
    expect(proof.extra!.subarray(0, 30).toString()).toBe('age-v1.2.1-darwin-arm64.tar.gz');
    expect(proof.index).toBe(73894);
    expect(proof.proof.map((h) => h.toString('base64'))).toEqual(
      C2SP_EXAMPLE.split('\n').slice(3, 8),
    );
    expect(proof.checkpoint).toBe(C2SP_EXAMPLE.split('\n').slice(9).join('\n'));
    expect(formatTlogProof(proof)).toBe(C2SP_EXAMPLE);
  });

  it('verifies an entry offline with nothing but the log’s verifier key', () => {
    const bundle = formatTlogProof({
      index: 13,
      proof: proofOf(13),
      checkpoint,
      extra: Buffer.from('{"entry":13}'),
    });
    const parsed = parseTlogProof(bundle);
    expect(parsed.index).toBe(13);
    const result = verifyTlogProof(Buffer.from(bundle), leafHash(entries[13]!), verifier);
    expect(result.index).toBe(13);
    expect(result.checkpoint.size).toBe(20);
    expect(result.extra!.toString()).toBe('{"entry":13}');
  });

  it('writes no extra line when there is no extra data', () => {
    const bundle = formatTlogProof({ index: 0, proof: proofOf(0), checkpoint });
    expect(bundle.split('\n').slice(0, 2)).toEqual(['c2sp.org/tlog-proof@v1', 'index 0']);
    expect('extra' in parseTlogProof(bundle)).toBe(false);
  });

  it('refuses another entry, an index past the checkpoint, another key and another log', () => {
    const bundle = formatTlogProof({ index: 13, proof: proofOf(13), checkpoint });
    const computed = rootFromInclusionProof(leafHash(entries[12]!), 13, 20, proofOf(13)).toString(
      'base64',
    );
    const error = expectRefusal(
      () => verifyTlogProof(bundle, leafHash(entries[12]!), verifier),
      InclusionProofError,
      `inclusion proof for index 13 computes root ${computed}, not the tree's root ${root.toString('base64')}`,
    );
    expect((error as InclusionProofError).reason).toBe('root');
    expectRefusal(
      () =>
        verifyTlogProof(
          formatTlogProof({ index: 20, proof: [], checkpoint }),
          leafHash(entries[0]!),
          verifier,
        ),
      InclusionProofError,
      "tlog-proof index 20 is not below the checkpoint's tree size 20",
    );
    const other = parseVerifierKey(generateNoteKey('world.example/log').vkey);
    expectRefusal(
      () => verifyTlogProof(bundle, leafHash(entries[13]!), other),
      WrongKeyError,
      `the note is signed by ${verifier.vkey.split('+').slice(0, 2).join('+')}, not by the known key ${other.vkey.split('+').slice(0, 2).join('+')}`,
    );
    expectRefusal(
      () => verifyTlogProof(bundle, leafHash(entries[13]!), verifier, 'world.example/other'),
      CheckpointOriginError,
      'checkpoint origin "world.example/log" is not the expected origin "world.example/other"',
    );
  });

  const hash = Buffer.alloc(32, 1).toString('base64');
  it.each([
    [
      'wrong-header\nindex 0\n\ncheckpoint\n',
      'tlog-proof must start with the line "c2sp.org/tlog-proof@v1"',
    ],
    [
      'c2sp.org/tlog-proof@v1\nextra !!notbase64!!\nindex 0\n\ncheckpoint\n',
      'tlog-proof extra data (line 2) is not standard padded base64',
    ],
    [
      'c2sp.org/tlog-proof@v1\n\n\ncheckpoint\n',
      'tlog-proof line 2 must be "index <decimal without leading zeros>"',
    ],
    [
      'c2sp.org/tlog-proof@v1\nindex notanumber\n\ncheckpoint\n',
      'tlog-proof line 2 must be "index <decimal without leading zeros>"',
    ],
    [
      'c2sp.org/tlog-proof@v1\nindex -5\n\ncheckpoint\n',
      'tlog-proof line 2 must be "index <decimal without leading zeros>"',
    ],
    [
      'c2sp.org/tlog-proof@v1\nextra AA==\nindex 05\n\ncheckpoint\n',
      'tlog-proof line 3 must be "index <decimal without leading zeros>"',
    ],
    [
      'c2sp.org/tlog-proof@v1\nindex 9007199254740992\n\ncheckpoint\n',
      'tlog-proof index 9007199254740992 is past 2^53 − 1',
    ],
    [
      'c2sp.org/tlog-proof@v1\nindex 0\n!!notbase64!!\n\ncheckpoint\n',
      'tlog-proof line 3 is not a standard padded base64 hash',
    ],
    [
      `c2sp.org/tlog-proof@v1\nindex 0\n${hash}\n${Buffer.alloc(64).toString('base64')}\n\ncheckpoint\n`,
      'tlog-proof line 4 is a 64-byte hash, not 32',
    ],
    [
      `c2sp.org/tlog-proof@v1\nindex 0\n${hash}\n`,
      'tlog-proof has no checkpoint after its blank line',
    ],
    [
      `c2sp.org/tlog-proof@v1\nindex 0\n${hash}`,
      'tlog-proof has no blank line before its checkpoint',
    ],
    [
      'c2sp.org/tlog-proof@v1\r\nindex 0\n\ncheckpoint\n',
      'tlog-proof line 1 contains control character U+000D; only newline (U+000A) is allowed',
    ],
  ])('refuses the malformed tlog-proof %j', (text, message) => {
    expectRefusal(() => parseTlogProof(text), TlogProofFormatError, message);
  });

  it('refuses bytes that are not UTF-8', () => {
    expectRefusal(
      () => parseTlogProof(Buffer.from([0x63, 0xff])),
      TlogProofFormatError,
      'tlog-proof is not valid UTF-8',
    );
  });

  it.each([
    [
      { index: -1, proof: [], checkpoint },
      'tlog-proof index must be a non-negative integer, got -1',
    ],
    [{ index: 0, proof: [Buffer.alloc(31)], checkpoint }, 'tlog-proof hash 1 is 31 bytes, not 32'],
    [
      { index: 0, proof: [], checkpoint: 'no newline' },
      'tlog-proof checkpoint must be a signed note ending in a newline',
    ],
  ])('refuses to format %p', (proof, message) => {
    expectRefusal(() => formatTlogProof(proof), TlogProofFormatError, message);
  });
});
