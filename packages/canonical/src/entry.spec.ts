import { canonicalJson } from './jcs.js';
import { entryHash, GENESIS_PREV_ENTRY_HASH, worldRef } from './entry.js';
import { refOf, type Ref } from './ref.js';

const r = (c: string): Ref => `sha256:${c.repeat(64)}`;

describe('entry hash and world ref (DESIGN.md §4)', () => {
  const header = {
    entryIndex: 3,
    semanticsEpoch: 1,
    transitionFn: r('1'),
    interpreter: r('2'),
    prevEntryHash: r('3'),
    writtenBy: 'coordinator:mcp',
  };

  it('hashes the JCS of the six header fields plus transitionRef', () => {
    const expected = refOf(
      canonicalJson({
        entryIndex: 3,
        interpreter: r('2'),
        prevEntryHash: r('3'),
        semanticsEpoch: 1,
        transitionFn: r('1'),
        transitionRef: r('4'),
        writtenBy: 'coordinator:mcp',
      }),
    );
    expect(entryHash(header, r('4'))).toBe(expected);
    expect(entryHash({ ...header, entryIndex: 4 }, r('4'))).not.toBe(expected);
  });

  it('hashes the JCS of {revision, stateRoot, logHead} for the world ref', () => {
    expect(worldRef({ revision: 2, stateRoot: r('5'), logHead: r('6') })).toBe(
      refOf(`{"logHead":"${r('6')}","revision":2,"stateRoot":"${r('5')}"}`),
    );
  });

  it('links genesis to the hash of nothing', () => {
    expect(GENESIS_PREV_ENTRY_HASH).toBe(refOf(''));
  });
});
