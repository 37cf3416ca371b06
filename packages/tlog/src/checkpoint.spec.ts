import { createHash, createPrivateKey, createPublicKey } from 'node:crypto';
import { expectRefusal } from '../test/refusal.js';
import { formatCheckpoint, openCheckpoint, parseCheckpoint, signCheckpoint } from './checkpoint.js';
import {
  CheckpointFormatError,
  CheckpointOriginError,
  UnknownKeyError,
  WrongKeyError,
} from './errors.js';
import { EMPTY_ROOT } from './hash.js';
import {
  generateNoteKey,
  noteKeyId,
  formatKeyId,
  parseSignerKey,
  parseVerifierKey,
} from './keys.js';
import { parseNote, signNote } from './note.js';

// A real checkpoint of Go's checksum database, as published in sigsum-go's checkpoint tests
// (TestGoSumDBCheckpoint: "Retrieved from https://sum.golang.org/latest, 2024-09-23"), and the
// database's published verifier key (Go's cmd/go/internal/modfetch/key.go).
const SUMDB_VKEY = 'sum.golang.org+033de0ae+Ac4zctda0e5eza+HJyk9SxEdh+s3Ux18htTTAD8OuAn8';
const SUMDB_CHECKPOINT =
  'go.sum database tree\n30055305\nmXfgRcJ0bG0j3CPdKwgGWtUzBUbX67saZGRmFuJGGsM=\n\n' +
  '— sum.golang.org Az3grpgEild5qw7+5dtV13Kf1C2Xurm8q4fhdxvcsDHnqNTaxL2AFjBY+2TyGKevucFcAAlWFJJYle3EJlDCrQ+y3A8=\n';
// The example of C2SP tlog-checkpoint (signed by a key it does not publish).
const C2SP_EXAMPLE =
  'example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n\n' +
  '— example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=\n';
// sigsum-go's checkpoint tests (validCheckpointASCII): Ed25519 seed 0x11 ‖ 31 zero bytes, origin
// "sigsum.org/v1/tree/" + hex SHA-256 of the public key, size 10, root 1c 0e 47 ‖ 29 zero bytes.
const SIGSUM_CHECKPOINT =
  'sigsum.org/v1/tree/e796172b92befd62d9dc67e41c2f5bc9d3100a3023b20b1ca40288dd1c679e69\n10\nHA5HAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n\n' +
  '— sigsum.org/v1/tree/e796172b92befd62d9dc67e41c2f5bc9d3100a3023b20b1ca40288dd1c679e69 gJ2ho0n8F8olcerUF1FFdv235A/5as/coWrpLrtE7ovMeP5whgwouYExowG/lTznxu6OUGjjt5yJQ6bXtTcf718MqAQ=\n';

const ROOT = Buffer.alloc(32, 7);

describe('checkpoints (C2SP tlog-checkpoint)', () => {
  it('verifies a real sum.golang.org checkpoint with its published key', () => {
    const { checkpoint, note } = openCheckpoint(
      SUMDB_CHECKPOINT,
      parseVerifierKey(SUMDB_VKEY),
      'go.sum database tree',
    );
    expect(checkpoint.origin).toBe('go.sum database tree');
    expect(checkpoint.size).toBe(30055305);
    expect(checkpoint.rootHash.toString('base64')).toBe(
      'mXfgRcJ0bG0j3CPdKwgGWtUzBUbX67saZGRmFuJGGsM=',
    );
    expect(checkpoint.extensions).toEqual([]);
    expect(note.verified.map((s) => s.keyId)).toEqual([0x033de0ae]);
    expect(formatCheckpoint(checkpoint)).toBe(note.text);
  });

  it('signs sigsum-go’s published checkpoint byte for byte from its seed', () => {
    const seed = Buffer.concat([Buffer.from([0x11]), Buffer.alloc(31)]);
    const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]);
    const jwk = createPublicKey(
      createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }),
    ).export({ format: 'jwk' });
    const publicKey = Buffer.from(jwk.x!, 'base64url');
    const origin = `sigsum.org/v1/tree/${createHash('sha256').update(publicKey).digest('hex')}`;
    expect(origin).toBe(SIGSUM_CHECKPOINT.slice(0, SIGSUM_CHECKPOINT.indexOf('\n')));
    const keyId = formatKeyId(noteKeyId(origin, Buffer.concat([Buffer.from([1]), publicKey])));
    const typedSeed = Buffer.concat([Buffer.from([1]), seed]).toString('base64');
    const signer = parseSignerKey(`PRIVATE+KEY+${origin}+${keyId}+${typedSeed}`);
    const rootHash = Buffer.concat([Buffer.from([0x1c, 0x0e, 0x47]), Buffer.alloc(29)]);
    expect(signCheckpoint({ origin, size: 10, rootHash, extensions: [] }, signer)).toBe(
      SIGSUM_CHECKPOINT,
    );
  });

  it('parses the spec’s example, and refuses it under a key that did not sign it', () => {
    const checkpoint = parseCheckpoint(parseNote(C2SP_EXAMPLE).text);
    expect([checkpoint.origin, checkpoint.size, checkpoint.rootHash.toString('base64')]).toEqual([
      'example.com/behind-the-sofa',
      20852163,
      'CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=',
    ]);
    expectRefusal(
      () => openCheckpoint(C2SP_EXAMPLE, parseVerifierKey(SUMDB_VKEY)),
      UnknownKeyError,
      'the note has no signature by a known key name: it is signed by example.com/behind-the-sofa+033de0ae; known keys: sum.golang.org+033de0ae',
    );
  });

  it('round-trips sign and open, with the empty tree and with extension lines', () => {
    const { skey, vkey } = generateNoteKey('world.example/log');
    for (const checkpoint of [
      { origin: 'world.example/log', size: 0, rootHash: EMPTY_ROOT, extensions: [] },
      {
        origin: 'world.example/log',
        size: 2 ** 53 - 1,
        rootHash: ROOT,
        extensions: ['ext one', 'ext two'],
      },
    ]) {
      const signed = signCheckpoint(checkpoint, parseSignerKey(skey));
      expect(openCheckpoint(signed, parseVerifierKey(vkey)).checkpoint).toEqual(checkpoint);
    }
  });

  it('refuses a verified checkpoint of another log, and a signed note that is not a checkpoint', () => {
    const { skey, vkey } = generateNoteKey('world.example/log');
    const signer = parseSignerKey(skey);
    const other = signCheckpoint(
      { origin: 'elsewhere.example', size: 1, rootHash: ROOT, extensions: [] },
      signer,
    );
    expectRefusal(
      () => openCheckpoint(other, parseVerifierKey(vkey)),
      CheckpointOriginError,
      'checkpoint origin "elsewhere.example" is not the expected origin "world.example/log"',
    );
    expectRefusal(
      () => openCheckpoint(signNote('hello\n', [signer]), parseVerifierKey(vkey)),
      CheckpointFormatError,
      'checkpoint has 1 line; it needs at least 3 (origin, tree size, root hash)',
    );
  });

  it('refuses a checkpoint signed by another key of the same name', () => {
    const impostor = parseSignerKey(generateNoteKey('sum.golang.org').skey);
    const signed = signCheckpoint(
      { origin: 'go.sum database tree', size: 1, rootHash: ROOT, extensions: [] },
      impostor,
    );
    expectRefusal(
      () => openCheckpoint(signed, parseVerifierKey(SUMDB_VKEY), 'go.sum database tree'),
      WrongKeyError,
      `the note is signed by sum.golang.org+${formatKeyId(impostor.keyId)}, not by the known key sum.golang.org+033de0ae`,
    );
  });

  const root = ROOT.toString('base64');
  it.each([
    [`o\n1\n${root}`, 'checkpoint must end with a newline'],
    ['o\n1\n', 'checkpoint has 2 lines; it needs at least 3 (origin, tree size, root hash)'],
    [`\n1\n${root}\n`, 'checkpoint origin (line 1) is empty'],
    [
      `o\n01\n${root}\n`,
      'checkpoint tree size (line 2) "01" is not a decimal number without leading zeros',
    ],
    [
      `o\n-1\n${root}\n`,
      'checkpoint tree size (line 2) "-1" is not a decimal number without leading zeros',
    ],
    [
      `o\n1.0\n${root}\n`,
      'checkpoint tree size (line 2) "1.0" is not a decimal number without leading zeros',
    ],
    [
      `o\n 1\n${root}\n`,
      'checkpoint tree size (line 2) " 1" is not a decimal number without leading zeros',
    ],
    [
      `o\n9007199254740992\n${root}\n`,
      'checkpoint tree size (line 2) 9007199254740992 is past 2^53 − 1',
    ],
    ['o\n1\nnot base64!\n', 'checkpoint root hash (line 3) is not standard padded base64'],
    [`o\n1\n${root.slice(0, -1)}\n`, 'checkpoint root hash (line 3) is not standard padded base64'],
    [
      `o\n1\n${Buffer.alloc(31).toString('base64')}\n`,
      'checkpoint root hash (line 3) is 31 bytes, not 32',
    ],
    [`o\n1\n${root}\next\n\n`, 'checkpoint line 5 is empty'],
    [
      `o\r\n1\n${root}\n`,
      'checkpoint line 1 contains control character U+000D; only newline (U+000A) is allowed',
    ],
  ])('refuses the checkpoint text %j', (text, message) => {
    expectRefusal(() => parseCheckpoint(text), CheckpointFormatError, message);
  });

  it.each([
    [{ origin: '', size: 1, rootHash: ROOT, extensions: [] }, 'checkpoint origin is empty'],
    [
      { origin: 'a\nb', size: 1, rootHash: ROOT, extensions: [] },
      'checkpoint origin contains a newline',
    ],
    [
      { origin: 'o', size: -1, rootHash: ROOT, extensions: [] },
      'checkpoint tree size must be an integer from 0 to 2^53 − 1, got -1',
    ],
    [
      { origin: 'o', size: 1, rootHash: Buffer.alloc(31), extensions: [] },
      'checkpoint root hash is 31 bytes, not 32',
    ],
    [
      { origin: 'o', size: 1, rootHash: ROOT, extensions: [''] },
      'checkpoint extension line 1 is empty',
    ],
    [
      { origin: 'o\t', size: 1, rootHash: ROOT, extensions: [] },
      'checkpoint line 1 contains control character U+0009; only newline (U+000A) is allowed',
    ],
  ])('refuses to format %p', (checkpoint, message) => {
    expectRefusal(() => formatCheckpoint(checkpoint), CheckpointFormatError, message);
  });
});
