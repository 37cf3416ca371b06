import { expectRefusal } from '../test/refusal.js';
import {
  BadSignatureError,
  KeyFormatError,
  NoteFormatError,
  UnknownKeyError,
  WrongKeyError,
} from './errors.js';
import { generateNoteKey, parseSignerKey, parseVerifierKey } from './keys.js';
import { openNote, parseNote, signNote } from './note.js';

// Known answers of golang.org/x/mod/sumdb/note (note.go's package example; note_test.go TestSign,
// TestOpen): Ed25519 is deterministic, so signing this text with this key gives exactly PETER_SIG.
const PETER_SKEY = 'PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz';
const PETER_VKEY = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';
const ENOCH_VKEY = 'EnochRoot+af0cfe78+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop';
const TEXT =
  "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const PETER_SIG =
  '— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n';
const ENOCH_SIG =
  '— EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc+QQ=\n';
// The example of C2SP signed-note: its text holds a blank line of its own.
const QUASIMODO =
  'Ognuno sta solo sul cuor della terra\ntrafitto da un raggio di sole:\n\ned è subito sera.\n\n' +
  '— quasimodo.example/salvatore NnugSzTjtVAewIS+Z/iJhUPeFDkO/5QQ2i5ddnGITLlC+EhfLW9oJKONrMouFSQU0xMcXxj99ihAQwaqP3ZekRwNtIc=\n';

const peter = parseVerifierKey(PETER_VKEY);
const enoch = parseVerifierKey(ENOCH_VKEY);

describe('signed notes (C2SP signed-note)', () => {
  it('signs the published example to the published signature', () => {
    expect(signNote(TEXT, [parseSignerKey(PETER_SKEY)])).toBe(`${TEXT}\n${PETER_SIG}`);
  });

  it('opens a note signed by a known and an unknown key, verifying only the known one', () => {
    const note = openNote(`${TEXT}\n${PETER_SIG}${ENOCH_SIG}`, [peter]);
    expect(note.text).toBe(TEXT);
    expect(note.verified.map((s) => [s.name, s.keyId])).toEqual([['PeterNeumann', 0xc74f20a3]]);
    expect(note.unverified.map((s) => [s.name, s.keyId])).toEqual([['EnochRoot', 0xaf0cfe78]]);
    const both = openNote(Buffer.from(`${TEXT}\n${PETER_SIG}${ENOCH_SIG}`), [peter, enoch]);
    expect(both.verified.map((s) => s.name)).toEqual(['PeterNeumann', 'EnochRoot']);
    expect(both.unverified).toEqual([]);
  });

  it('splits at the last blank line, so a text may contain blank lines (the spec’s example)', () => {
    const note = parseNote(QUASIMODO);
    expect(note.text).toBe(
      'Ognuno sta solo sul cuor della terra\ntrafitto da un raggio di sole:\n\ned è subito sera.\n',
    );
    expect(note.signatures.map((s) => [s.name, s.signature.length])).toEqual([
      ['quasimodo.example/salvatore', 64],
    ]);
  });

  it('round-trips a text through sign and open, with several signers in order', () => {
    const a = generateNoteKey('a.example/log');
    const b = generateNoteKey('b.example/witness');
    const text = 'line one\n\nline three — with UTF-8: è ✓\n';
    const signed = signNote(text, [parseSignerKey(a.skey), parseSignerKey(b.skey)]);
    const note = openNote(signed, [parseVerifierKey(b.vkey), parseVerifierKey(a.vkey)]);
    expect(note.text).toBe(text);
    expect(note.signatures.map((s) => s.name)).toEqual(['a.example/log', 'b.example/witness']);
  });

  it('counts a repeated signature by one key once', () => {
    const note = openNote(`${TEXT}\n${PETER_SIG}${PETER_SIG}`, [peter]);
    expect(note.verified).toHaveLength(1);
  });
});

describe('signed-note refusals: each failure has its own class and message', () => {
  it('bad signature: a known key’s signature that does not verify', () => {
    const forged = `${TEXT}\n${PETER_SIG.slice(0, 60)}ABCD${PETER_SIG.slice(60)}`;
    const message =
      'the signature by PeterNeumann+c74f20a3 does not verify: the note was altered or not signed by this key';
    expectRefusal(() => openNote(forged, [peter]), BadSignatureError, message);
    const altered = `${TEXT.replace('answer', 'Answer')}\n${PETER_SIG}`;
    expectRefusal(() => openNote(altered, [peter]), BadSignatureError, message);
  });

  it('wrong key: signed under the known name by another key', () => {
    const impostor = parseSignerKey(generateNoteKey('PeterNeumann').skey);
    const id = impostor.keyId.toString(16).padStart(8, '0');
    expectRefusal(
      () => openNote(signNote(TEXT, [impostor]), [peter]),
      WrongKeyError,
      `the note is signed by PeterNeumann+${id}, not by the known key PeterNeumann+c74f20a3`,
    );
  });

  it('unknown key name: no signature under any known name', () => {
    expectRefusal(
      () => openNote(`${TEXT}\n${ENOCH_SIG}`, [peter]),
      UnknownKeyError,
      'the note has no signature by a known key name: it is signed by EnochRoot+af0cfe78; known keys: PeterNeumann+c74f20a3',
    );
    expectRefusal(
      () => openNote(`${TEXT}\n${ENOCH_SIG}`, []),
      UnknownKeyError,
      'the note has no signature by a known key name: it is signed by EnochRoot+af0cfe78; known keys: none',
    );
  });

  it('refuses two verifiers with one name and key ID', () => {
    expectRefusal(
      () => openNote(`${TEXT}\n${PETER_SIG}`, [peter, peter]),
      KeyFormatError,
      'two verifier keys are PeterNeumann+c74f20a3: ambiguous',
    );
  });

  // The malformed messages of note_test.go TestOpen ("badMsgs") and more.
  it.each([
    [
      TEXT,
      'note has no signature block: its text must be followed by a blank line and signature lines',
    ],
    [`${TEXT}\n`, 'note has no signature lines after its blank line'],
    [
      `${TEXT}\n${PETER_SIG.slice(0, -1)}`,
      "note's last signature line does not end with a newline",
    ],
    [
      `\x01${TEXT}\n${PETER_SIG}`,
      'note line 1 contains control character U+0001; only newline (U+000A) is allowed',
    ],
    [
      `${TEXT.replace('\n', '\r\n')}\n${PETER_SIG}`,
      'note line 1 contains control character U+000D; only newline (U+000A) is allowed',
    ],
    [
      `${TEXT}\n— Bad Name x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`,
      'signature line 1: the signature is not standard padded base64',
    ],
    [
      `${TEXT}\n${PETER_SIG}Unexpected line.\n`,
      'signature line 2 must start with "— " (U+2014, space)',
    ],
    [`${TEXT}\n— PeterNeumann\n`, 'signature line 1 must be "— <key name> <base64 signature>"'],
    [
      `${TEXT}\n—  x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`,
      'signature line 1 has an invalid key name "": it must be non-empty, with no spaces and no "+"',
    ],
    [
      `${TEXT}\n— Peter+Neumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`,
      'signature line 1 has an invalid key name "Peter+Neumann": it must be non-empty, with no spaces and no "+"',
    ],
    [
      `${TEXT}\n— PeterNeumann x08gow==\n`,
      'signature line 1: a signature is a 4-byte key ID and at least 1 signature byte, got 4 bytes',
    ],
    [`${TEXT}\n${PETER_SIG.repeat(101)}`, 'note has 101 signature lines; at most 100 are accepted'],
    [`${TEXT}\ud800\n\n${PETER_SIG}`, 'note is not valid UTF-8'],
  ])('refuses the malformed note %#', (message, error) => {
    expectRefusal(() => parseNote(message), NoteFormatError, error);
    expectRefusal(() => openNote(message, [peter]), NoteFormatError, error);
  });

  it('refuses bytes that are not UTF-8 (note_test.go: a leading 0xff)', () => {
    const bytes = Buffer.concat([Buffer.from([0xff]), Buffer.from(`${TEXT}\n${PETER_SIG}`)]);
    expectRefusal(() => parseNote(bytes), NoteFormatError, 'note is not valid UTF-8');
  });

  it('keeps a leading byte-order mark as text instead of dropping it silently', () => {
    const bytes = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from(`${TEXT}\n${PETER_SIG}`),
    ]);
    expect(parseNote(bytes).text).toBe(`\ufeff${TEXT}`);
    expectRefusal(
      () => openNote(bytes, [peter]),
      BadSignatureError,
      'the signature by PeterNeumann+c74f20a3 does not verify: the note was altered or not signed by this key',
    );
  });

  it('accepts 100 signatures, the cap (the spec requires at least 16)', () => {
    expect(parseNote(`${TEXT}\n${PETER_SIG.repeat(100)}`).signatures).toHaveLength(100);
  });

  it.each([
    ['no final newline', 'abc', NoteFormatError, 'note text must end with a newline'],
    [
      'a control character',
      'a\tb\n',
      NoteFormatError,
      'note text line 1 contains control character U+0009; only newline (U+000A) is allowed',
    ],
  ])('refuses to sign a text with %s', (_what, text, Class, message) => {
    expectRefusal(() => signNote(text, [parseSignerKey(PETER_SKEY)]), Class, message);
  });

  it('refuses to sign with no signer or a signer with an invalid name', () => {
    expectRefusal(() => signNote(TEXT, []), NoteFormatError, 'a note needs at least one signer');
    const bad = { ...parseSignerKey(PETER_SKEY), name: 'bad name' };
    expectRefusal(
      () => signNote(TEXT, [bad]),
      KeyFormatError,
      'signer key name "bad name" is invalid: it must be non-empty, with no spaces and no "+"',
    );
  });
});
