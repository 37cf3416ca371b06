import { refOf, type Ref } from '@world/canonical';
import { decideBegin, invocationOf, receiptOf, type JournalView } from './invocation-law.js';

const HASH = 'a'.repeat(64);
const OTHER = 'b'.repeat(64);
const world: Ref = refOf('world');
const output: Ref = refOf('output');
const outputBytes = Buffer.from('{"ok":true}');

const row = (over: Partial<JournalView>): JournalView => ({
  kind: 'tool',
  state: 'claimed',
  claimHash: HASH,
  endReason: null,
  expired: false,
  claimHolder: null,
  entryIndex: null,
  worldRef: null,
  outputRef: null,
  output: null,
  ...over,
});

const committed = row({
  state: 'committed',
  entryIndex: 7,
  worldRef: world,
  outputRef: output,
  output: outputBytes,
});
const committedReply = {
  state: 'committed',
  entryIndex: 7,
  worldRef: world,
  outputRef: output,
  output: outputBytes.toString('base64'),
};

describe('receiptOf — GetReceipt law (world-internals §5.3, world-spec §2.15)', () => {
  it.each<[string, JournalView | null, object]>([
    ['no row is not-started', null, { invocationId: 'rest:x', state: 'not-started' }],
    [
      'a REST intent without outcome is indeterminate',
      row({ kind: 'rest', state: 'intent', claimHash: null }),
      { invocationId: 'rest:x', state: 'indeterminate' },
    ],
    ['a live claim is indeterminate', row({}), { invocationId: 'rest:x', state: 'indeterminate' }],
    [
      'an ended claim is indeterminate',
      row({ state: 'ended', endReason: 'uncertain' }),
      { invocationId: 'rest:x', state: 'indeterminate' },
    ],
    [
      'a committed row is resolved with the world ref',
      committed,
      { invocationId: 'rest:x', state: 'resolved', resultRef: world },
    ],
  ])('%s', (_case, view, expected) => {
    expect(receiptOf('rest:x', view)).toEqual(expected);
  });
});

describe('invocationOf — the read-only view (DESIGN.md §7.4)', () => {
  it.each<[string, JournalView | null, object]>([
    ['no row is none', null, { state: 'none' }],
    ['a committed row carries the output bytes', committed, committedReply],
    ['a live claim is in-flight', row({}), { state: 'in-flight' }],
    [
      'an expired claim is ended:lapsed',
      row({ expired: true }),
      { state: 'ended', reason: 'lapsed' },
    ],
    [
      'an ended claim keeps its reason',
      row({ state: 'ended', endReason: 'abandoned' }),
      { state: 'ended', reason: 'abandoned' },
    ],
    [
      'a REST intent is in-flight',
      row({ kind: 'rest', state: 'intent', claimHash: null }),
      { state: 'in-flight' },
    ],
  ])('%s', (_case, view, expected) => {
    expect(invocationOf(view)).toEqual(expected);
  });
});

describe('decideBegin — idempotent invocations (DESIGN.md §7.4, world-spec §4.6, §6.5)', () => {
  it.each<[string, JournalView | null, string, boolean, object]>([
    ['no row: claim it', null, HASH, false, { action: 'claim' }],
    [
      'committed, same request: the committed result',
      committed,
      HASH,
      false,
      { action: 'answer', reply: committedReply },
    ],
    [
      'committed, other request: mismatch',
      committed,
      OTHER,
      false,
      { action: 'answer', reply: { state: 'mismatch' } },
    ],
    [
      'committed without a claim: mismatch (fail closed)',
      { ...committed, claimHash: null },
      HASH,
      false,
      { action: 'answer', reply: { state: 'mismatch' } },
    ],
    [
      'committed, reclaim: still the committed result',
      committed,
      HASH,
      true,
      { action: 'answer', reply: committedReply },
    ],
    [
      'live claim, same request: in-flight',
      row({}),
      HASH,
      false,
      { action: 'answer', reply: { state: 'in-flight' } },
    ],
    [
      'live claim, reclaim: still in-flight',
      row({}),
      HASH,
      true,
      { action: 'answer', reply: { state: 'in-flight' } },
    ],
    [
      'live claim naming its holder: in-flight with the holder',
      row({ claimHolder: 'c0ffee' }),
      HASH,
      false,
      { action: 'answer', reply: { state: 'in-flight', holder: 'c0ffee' } },
    ],
    [
      'expired claim naming its holder: ended:lapsed (no holder)',
      row({ claimHolder: 'c0ffee', expired: true }),
      HASH,
      false,
      { action: 'answer', reply: { state: 'ended', reason: 'lapsed' } },
    ],
    [
      'live claim, other request: mismatch',
      row({}),
      OTHER,
      false,
      { action: 'answer', reply: { state: 'mismatch' } },
    ],
    [
      'expired claim, same request: ended:lapsed',
      row({ expired: true }),
      HASH,
      false,
      { action: 'answer', reply: { state: 'ended', reason: 'lapsed' } },
    ],
    [
      'expired claim, other request: mismatch first',
      row({ expired: true }),
      OTHER,
      false,
      { action: 'answer', reply: { state: 'mismatch' } },
    ],
    [
      'expired claim, reclaim: claim again',
      row({ expired: true }),
      HASH,
      true,
      { action: 'claim' },
    ],
    [
      'ended claim: ended with its reason',
      row({ state: 'ended', endReason: 'uncertain' }),
      HASH,
      false,
      { action: 'answer', reply: { state: 'ended', reason: 'uncertain' } },
    ],
    [
      'ended claim, other request: mismatch',
      row({ state: 'ended', endReason: 'uncertain' }),
      OTHER,
      true,
      { action: 'answer', reply: { state: 'mismatch' } },
    ],
    [
      'ended claim, reclaim: claim again',
      row({ state: 'ended', endReason: 'abandoned' }),
      HASH,
      true,
      { action: 'claim' },
    ],
    [
      'a REST intent: mismatch (no request hash)',
      row({ kind: 'rest', state: 'intent', claimHash: null }),
      HASH,
      true,
      { action: 'answer', reply: { state: 'mismatch' } },
    ],
  ])('%s', (_case, view, hash, reclaim, expected) => {
    expect(decideBegin(view, hash, reclaim)).toEqual(expected);
  });
});
