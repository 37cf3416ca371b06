import { EMPTY_ROOT, leafHash, nodeHash } from './hash.js';

// Known answers from transparency-dev/merkle rfc6962/rfc6962_test.go (TestRFC6962Hasher), each
// reproducible with sha256sum as its comment there shows.
describe('RFC 9162 §2.1.1 hashing (transparency-dev/merkle rfc6962 vectors)', () => {
  it('hashes the empty tree to SHA-256 of the empty string', () => {
    expect(EMPTY_ROOT.toString('hex')).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
  });

  it('hashes the empty leaf as SHA-256(0x00), not as the empty tree', () => {
    expect(leafHash(Buffer.alloc(0)).toString('hex')).toBe(
      '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
    );
  });

  it('hashes a leaf as SHA-256(0x00 ‖ bytes)', () => {
    expect(leafHash(Buffer.from('L123456')).toString('hex')).toBe(
      '395aa064aa4c29f7010acfe3f25db9485bbd4b91897b6ad7ad547639252b4d56',
    );
  });

  it('hashes an interior node as SHA-256(0x01 ‖ left ‖ right)', () => {
    expect(nodeHash(Buffer.from('N123'), Buffer.from('N456')).toString('hex')).toBe(
      'aa217fe888e47007fa15edab33c2b492a722cb106c64667fc2b044444de66bbb',
    );
  });

  it('depends on the order of the children and separates leaves from nodes', () => {
    const a = leafHash(Buffer.from('Hello'));
    const b = leafHash(Buffer.from('World'));
    expect(nodeHash(a, b).equals(nodeHash(b, a))).toBe(false);
    expect(nodeHash(a, b).equals(leafHash(Buffer.concat([a, b])))).toBe(false);
  });
});
