import { expectRefusal, thrownBy } from '../test/refusal.js';
import { KeyFormatError } from './errors.js';
import {
  formatKeyId,
  generateNoteKey,
  isValidKeyName,
  parseSignerKey,
  parseVerifierKey,
  verifierKey,
} from './keys.js';

// Published keys of golang.org/x/mod/sumdb/note (note.go's package example, note_test.go) and of
// the Go command's checksum-database tests (cmd/go/proxy_test.go testSumDBSignerKey/VerifierKey).
const PETER_SKEY = 'PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz';
const PETER_VKEY = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';
const SUMDB_SKEY =
  'PRIVATE+KEY+localhost.localdev/sumdb+00000c67+AXu6+oaVaOYuQOFrf1V59JK1owcFlJcHwwXHDfDGxSPk';
const SUMDB_VKEY = 'localhost.localdev/sumdb+00000c67+AcTrnkbUA+TU4heY3hkjiSES/DSQniBqIeQ/YppAUtK6';

describe('signed-note key formats (C2SP signed-note; golang.org/x/mod/sumdb/note)', () => {
  it.each([
    [PETER_SKEY, PETER_VKEY, 'PeterNeumann', 0xc74f20a3],
    [SUMDB_SKEY, SUMDB_VKEY, 'localhost.localdev/sumdb', 0x00000c67],
  ])('derives the published verifier key from the signer key %s', (skey, vkey, name, keyId) => {
    const signer = parseSignerKey(skey);
    expect(signer.vkey).toBe(vkey);
    expect(signer.name).toBe(name);
    expect(signer.keyId).toBe(keyId);
    const verifier = parseVerifierKey(vkey);
    expect([verifier.name, verifier.keyId, verifier.vkey]).toEqual([name, keyId, vkey]);
    const sig = signer.sign(Buffer.from('hi'));
    expect(verifier.verify(Buffer.from('hi'), sig)).toBe(true);
    expect(verifier.verify(Buffer.from('hj'), sig)).toBe(false);
    expect(verifier.verify(Buffer.from('hi'), sig.subarray(1))).toBe(false);
  });

  it('generates key pairs whose signer and verifier keys agree', () => {
    const { skey, vkey } = generateNoteKey('world.example/log-test');
    expect(skey).toMatch(
      /^PRIVATE\+KEY\+world\.example\/log-test\+[0-9a-f]{8}\+[A-Za-z0-9+/]{44}$/,
    );
    const signer = parseSignerKey(skey);
    expect(signer.vkey).toBe(vkey);
    expect(parseVerifierKey(vkey).verify(Buffer.from('x'), signer.sign(Buffer.from('x')))).toBe(
      true,
    );
    // The key data is everything after the second "+" (base64 itself may contain "+").
    const [name, id] = vkey.split('+');
    const raw = Buffer.from(vkey.slice(`${name}+${id}+`.length), 'base64').subarray(1);
    expect(verifierKey('world.example/log-test', raw)).toBe(vkey);
    expect(formatKeyId(signer.keyId)).toBe(vkey.split('+')[1]);
  });

  it('refuses every truncation and every one-character change of a verifier key (note_test.go TestNewVerifier)', () => {
    const accepted: string[] = [];
    for (let i = 0; i <= PETER_VKEY.length; i++) {
      for (let j = i + 1; j <= PETER_VKEY.length; j++) {
        if (i === 0 && j === PETER_VKEY.length) continue;
        const part = PETER_VKEY.slice(i, j);
        if (!(thrownBy(() => parseVerifierKey(part)) instanceof KeyFormatError))
          accepted.push(part);
      }
    }
    for (let i = 0; i < PETER_VKEY.length; i++) {
      const bumped =
        PETER_VKEY.slice(0, i) +
        String.fromCharCode(PETER_VKEY.charCodeAt(i) + 1) +
        PETER_VKEY.slice(i + 1);
      if (!(thrownBy(() => parseVerifierKey(bumped)) instanceof KeyFormatError))
        accepted.push(bumped);
    }
    expect(accepted).toEqual([]);
  });

  it('refuses every one-character change of a signer key (note_test.go TestNewSigner)', () => {
    const accepted: string[] = [];
    for (let i = 0; i < PETER_SKEY.length; i++) {
      const bumped =
        PETER_SKEY.slice(0, i) +
        String.fromCharCode(PETER_SKEY.charCodeAt(i) + 1) +
        PETER_SKEY.slice(i + 1);
      if (!(thrownBy(() => parseSignerKey(bumped)) instanceof KeyFormatError))
        accepted.push(bumped);
    }
    expect(accepted).toEqual([]);
  });

  it.each([
    ['PeterNeumann', 'verifier key must be <name>+<8 hex key ID>+<base64 key>'],
    [
      'Peter Neumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW',
      'verifier key name "Peter Neumann" is invalid: it must be non-empty, with no spaces and no "+"',
    ],
    [
      '+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW',
      'verifier key name "" is invalid: it must be non-empty, with no spaces and no "+"',
    ],
    [
      'PeterNeumann+c74f20+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW',
      'verifier key: key ID must be 8 hex digits, got "c74f20"',
    ],
    [
      'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10T',
      'verifier key: key data is not standard padded base64',
    ],
    ['PeterNeumann+c74f20a3+', 'verifier key: no key data'],
    // note_test.go: "wrong length key, with adjusted key hash" and "unknown algorithm, with adjusted key hash"
    [
      'PeterNeumann+cc469956+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TWBADKEY==',
      'verifier key: an Ed25519 key is 32 bytes, got 36',
    ],
    [
      'PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW',
      'verifier key: signature type 0x65 is not supported (only Ed25519, 0x01)',
    ],
    [
      'PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW',
      'verifier key: key ID c74f20a4 does not match its name and key (expected c74f20a3)',
    ],
    // SHA-256("PeterNeuman\n" ‖ key)[:4] = 94245f47, computed with node:crypto outside the package.
    [
      'PeterNeuman+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW',
      'verifier key: key ID c74f20a3 does not match its name and key (expected 94245f47)',
    ],
  ])('refuses the verifier key %s', (vkey, message) => {
    expectRefusal(() => parseVerifierKey(vkey), KeyFormatError, message);
  });

  it.each([
    [PETER_VKEY, 'signer key must start with "PRIVATE+KEY+"'],
    [
      'PRIVATE+KEY+PeterNeumann+c74f20a4+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz',
      'signer key: key ID c74f20a4 does not match its name and key (expected c74f20a3)',
    ],
    [
      'PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDF=',
      'signer key: an Ed25519 key is 32 bytes, got 31',
    ],
  ])('refuses the signer key %s, never quoting its key data', (skey, message) => {
    const error = expectRefusal(() => parseSignerKey(skey), KeyFormatError, message);
    expect(error.message).not.toContain('AYEKFALV');
  });

  it.each([
    ['example.com/log', true],
    ['PeterNeumann', true],
    ['', false],
    ['a+b', false],
    ['a b', false],
    ['a\tb', false],
    ['a\u00a0b', false],
    ['a\u2003b', false],
    ['a\u0085b', false],
  ])('key name %j valid: %s', (name, valid) => {
    expect(isValidKeyName(name)).toBe(valid);
  });
});
