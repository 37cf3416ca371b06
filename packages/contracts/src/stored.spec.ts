import { entryHash, refOf, worldRef, type LogEntry, type World } from '@world/canonical';
import { storedProblem, type StoredItem } from './stored.js';

const payload = Buffer.from('{"a":1}');
const header = {
  entryIndex: 3,
  semanticsEpoch: 1,
  transitionFn: refOf('fn'),
  interpreter: refOf('interp'),
  prevEntryHash: refOf('prev'),
  writtenBy: 'coordinator:mcp',
};
const entry: LogEntry = {
  header,
  entryHash: entryHash(header, refOf('record')),
  transitionRef: refOf('record'),
};
const shape = { revision: 3, stateRoot: refOf('output'), logHead: entry.entryHash };
const world: World = { ref: worldRef(shape), ...shape };
const altered = { ...header, writtenBy: 'coordinator:a2a' };

describe('storedProblem (DESIGN.md §3: every read re-hashes what it serves)', () => {
  const rows: Array<[string, StoredItem, string | null]> = [
    [
      '§2.13 an object whose bytes hash to its ref',
      { kind: 'object', ref: refOf(payload), payload },
      null,
    ],
    [
      '§2.13 an object whose bytes were altered',
      { kind: 'object', ref: refOf('other'), payload },
      `object ${refOf('other')} has bytes that hash to ${refOf(payload)}`,
    ],
    ['§2.11 an entry that recomputes', { kind: 'entry', entry }, null],
    [
      '§2.11 an entry whose header was altered',
      { kind: 'entry', entry: { ...entry, header: altered } },
      `log entry 3 (${entry.entryHash}) has fields that hash to ${entryHash(altered, refOf('record'))}`,
    ],
    ['§2.12 a world that recomputes', { kind: 'world', world }, null],
    [
      '§2.12 a world whose stateRoot was altered',
      { kind: 'world', world: { ...world, stateRoot: refOf('x') } },
      `world ${world.ref} has fields that hash to ${worldRef({ ...shape, stateRoot: refOf('x') })}`,
    ],
    [
      '§2.15 a receipt on its stored world and entry',
      { kind: 'receipt', invocationId: 'rest:r', worldRef: world.ref, world, entry },
      null,
    ],
    [
      '§2.15 a receipt naming a world that is not stored',
      { kind: 'receipt', invocationId: 'rest:r', worldRef: refOf('w'), world: null, entry },
      `receipt rest:r names world ${refOf('w')}, which is not stored`,
    ],
    [
      '§2.15 a receipt naming an entry that is not stored',
      { kind: 'receipt', invocationId: 'rest:r', worldRef: world.ref, world, entry: null },
      'receipt rest:r names an entry that is not stored',
    ],
    [
      '§2.15 a receipt whose entry was altered',
      {
        kind: 'receipt',
        invocationId: 'rest:r',
        worldRef: world.ref,
        world,
        entry: { ...entry, header: altered },
      },
      `receipt rest:r: log entry 3 (${entry.entryHash}) has fields that hash to ${entryHash(altered, refOf('record'))}`,
    ],
    [
      '§2.15 a receipt whose world stands on another entry',
      {
        kind: 'receipt',
        invocationId: 'rest:r',
        worldRef: world.ref,
        world,
        entry: { ...entry, header: altered, entryHash: entryHash(altered, refOf('record')) },
      },
      `receipt rest:r names world ${world.ref}, which does not stand on entry 3`,
    ],
  ];
  it.each(rows)('%s', (_row, item, expected) => {
    expect(storedProblem(item)).toBe(expected);
  });
});
