import {
  canonicalJson,
  entryHash,
  GENESIS_PREV_ENTRY_HASH,
  interfaceHashOf,
  refOf,
  worldRef,
} from '@world/canonical';
import { genesis } from './genesis.js';

describe('genesis (DESIGN.md §7.3)', () => {
  const g = genesis();

  it('is the object {"world":"genesis"} of semantic id world/genesis/v1 written by the ledger', () => {
    expect(g.object.payload.toString('utf8')).toBe('{"world":"genesis"}');
    expect(g.object).toMatchObject({
      hash: refOf('{"world":"genesis"}'),
      interfaceHash: interfaceHashOf('world/genesis/v1'),
      semanticId: 'world/genesis/v1',
      provenance: 'ledger',
    });
  });

  it('is entry 0 at epoch 1, linked to the hash of nothing, with G as transitionFn, interpreter and body', () => {
    const header = {
      entryIndex: 0,
      semanticsEpoch: 1,
      transitionFn: g.object.hash,
      interpreter: g.object.hash,
      prevEntryHash: GENESIS_PREV_ENTRY_HASH,
      writtenBy: 'ledger:genesis',
    };
    expect(g.entry).toEqual({
      header,
      entryHash: entryHash(header, g.object.hash),
      transitionRef: g.object.hash,
    });
  });

  it('is world revision 0 with stateRoot G and logHead entry 0', () => {
    const shape = { revision: 0, stateRoot: g.object.hash, logHead: g.entry.entryHash };
    expect(g.world).toEqual({ ref: worldRef(shape), ...shape });
  });

  it('publishes epoch 1 of release world-ts/0.1 in the epoch registry (world-spec §2.17)', () => {
    expect(g.epochRegistry.semanticId).toBe('world/epoch-registry/v1');
    expect(g.epochRegistry.payload.toString('utf8')).toBe(
      canonicalJson({ epochs: [{ epoch: 1, release: 'world-ts/0.1' }] }),
    );
  });

  it('is the same on every call (every ledger computes one genesis)', () => {
    expect(genesis()).toEqual(g);
  });
});
