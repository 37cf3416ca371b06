import { makeJsonObject, refOf, toWireObject } from '@world/canonical';
import { parseRequest } from '@world/contracts';
import {
  ONE_STATEMENT,
  OWN_TRANSACTION,
  SHARED_TRANSACTION,
  chooseStrategy,
  type CommitStrategy,
} from './commit-strategies.js';
import { FAST_PATH_BACKOFF, LastHead } from './last-head.js';
import { prepareCommit, type PreparedCommit } from './tool-commit.js';

const output = makeJsonObject('world/invocation-output/v1', 'coordinator:mcp', { ok: true });
const record = makeJsonObject('world/invocation-record/v1', 'coordinator:mcp', { n: 1 });

/** A coordinator commit carrying its record, and its output unless `withOutput` is false. */
function call(task: string, withOutput = true): PreparedCommit {
  return prepareCommit(
    parseRequest('ledger.commit', {
      invocationId: `mcp:ep1:${task}`,
      writtenBy: 'coordinator:mcp',
      semanticsEpoch: 1,
      transitionFn: refOf('fn'),
      interpreter: refOf('interp'),
      transitionRef: record.hash,
      stateRoot: output.hash,
      objects: (withOutput ? [output, record] : [record]).map(toWireObject),
    }),
  );
}

/** A replica that saw a head (or none). */
function seen(head: boolean): LastHead {
  const last = new LastHead();
  if (head) last.see({ worldRef: refOf('w'), entryIndex: 4, entryHash: refOf('e'), revision: 4 });
  return last;
}

describe('chooseStrategy — the one chooser of how a batch of tool commits is written', () => {
  afterEach(() => {
    delete process.env.WORLD_CRASHPOINT;
    delete process.env.WORLD_PAUSEPOINT;
  });

  it.each<[string, () => LastHead, PreparedCommit[], CommitStrategy]>([
    [
      'several commits share one transaction',
      () => seen(true),
      [call('t1'), call('t2')],
      SHARED_TRANSACTION,
    ],
    [
      'a lone commit on a replica that saw no head takes a transaction',
      () => seen(false),
      [call('t1')],
      OWN_TRANSACTION,
    ],
    [
      'a lone commit carrying both named refs takes one statement',
      () => seen(true),
      [call('t1')],
      ONE_STATEMENT,
    ],
    [
      'a lone commit whose state root must be looked up takes a transaction',
      () => seen(true),
      [call('t1', false)],
      OWN_TRANSACTION,
    ],
  ])('%s', (_case, lastHead, batch, expected) => {
    expect(chooseStrategy(lastHead(), batch)).toBe(expected);
  });

  it('sends a lone commit through the transaction while the inside-commit crash point is armed', () => {
    process.env.WORLD_CRASHPOINT = 'inside-commit';
    expect(chooseStrategy(seen(true), [call('t1')])).toBe(OWN_TRANSACTION);
    process.env.WORLD_CRASHPOINT = 'after-intent';
    expect(chooseStrategy(seen(true), [call('t1')])).toBe(ONE_STATEMENT);
  });

  it('does the same while the inside-commit pause point is armed', () => {
    process.env.WORLD_PAUSEPOINT = 'inside-commit';
    expect(chooseStrategy(seen(true), [call('t1')])).toBe(OWN_TRANSACTION);
    process.env.WORLD_PAUSEPOINT = 'after-intent';
    expect(chooseStrategy(seen(true), [call('t1')])).toBe(ONE_STATEMENT);
  });

  it('backs off the one statement for FAST_PATH_BACKOFF lone commits after two misses in a row', () => {
    const last = seen(true);
    last.missed();
    last.missed();
    const picks = Array.from({ length: FAST_PATH_BACKOFF + 1 }, () =>
      chooseStrategy(last, [call('t1')]),
    );
    expect(picks).toEqual([
      ...Array<CommitStrategy>(FAST_PATH_BACKOFF).fill(OWN_TRANSACTION),
      ONE_STATEMENT,
    ]);
  });
});
