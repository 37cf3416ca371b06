import { makeJsonObject, refOf, toWireObject, type Ref } from '@world/canonical';
import { BadRequestError, DuplicateInvocationError, parseRequest } from '@world/contracts';
import { chainToolCommit, freshCommitReply, type HeadPosition } from './chain.js';
import type { JournalBinding } from './commit.statements.js';
import {
  decideToolCommit,
  prepareCommit,
  type PreparedCommit,
  type ToolCommitFacts,
  type ToolDecision,
} from './tool-commit.js';

const head: HeadPosition = {
  worldRef: refOf('world-4'),
  entryIndex: 4,
  entryHash: refOf('entry-4'),
  revision: 4,
};

const input = makeJsonObject('world/invocation-input/v1', 'coordinator:mcp', { n: 1 });
const output = makeJsonObject('world/invocation-output/v1', 'coordinator:mcp', { ok: true });
const record = makeJsonObject('world/invocation-record/v1', 'coordinator:mcp', { record: 1 });

/** A coordinator commit of mcp:ep1:t1 carrying `carried` of input, output and record. */
function call(carried = [input, output, record], claimToken?: string): PreparedCommit {
  return prepareCommit(
    parseRequest('ledger.commit', {
      invocationId: 'mcp:ep1:t1',
      writtenBy: 'coordinator:mcp',
      semanticsEpoch: 1,
      transitionFn: refOf('fn'),
      interpreter: refOf('interp'),
      transitionRef: record.hash,
      stateRoot: output.hash,
      objects: carried.map(toWireObject),
      ...(claimToken === undefined ? {} : { claimToken }),
    }),
  );
}

const outcome = {
  entryIndex: 3,
  entryHash: refOf('entry-3'),
  prevEntryHash: refOf('entry-2'),
  worldRef: refOf('world-3'),
  revision: 3,
};
const row = (over: Partial<JournalBinding>): JournalBinding => ({
  kind: 'tool',
  state: 'claimed',
  commitHash: null,
  outcome: null,
  ...over,
});

/** The append decideToolCommit must decide for `prepared` on `head`. */
function appended(prepared: PreparedCommit): ToolDecision {
  const chained = chainToolCommit(head, prepared.request);
  return {
    kind: 'append',
    write: {
      objects: prepared.carried,
      ...chained,
      journal: {
        mode: 'tool',
        invocationId: 'mcp:ep1:t1',
        commitHash: prepared.commitHash,
        claimToken: prepared.request.claimToken ?? null,
      },
    },
    reply: freshCommitReply(chained),
  };
}

const plain = call();
const claimed = call(undefined, 'c'.repeat(32));
const noOutput = call([input, record]);
const noRefs = call([input]);
const stored = (...refs: Ref[]) => new Map(refs.map((ref) => [ref, 'world/invocation-output/v1']));

describe('decideToolCommit — what a tool commit appends (DESIGN.md §2, §7.1–7.2; world-internals §5.3)', () => {
  it.each<[string, PreparedCommit, Omit<ToolCommitFacts, 'head'>, ToolDecision]>([
    [
      'no journal row, both refs carried: the entry at head + 1 on the head entry hash',
      plain,
      { journal: null },
      appended(plain),
    ],
    [
      'its own claim (begin): appended, journaled under its claim token',
      claimed,
      { journal: row({}) },
      appended(claimed),
    ],
    [
      'a committed row of the same fingerprint: its first result, replayed:true (§5.3 resend)',
      plain,
      { journal: row({ state: 'committed', commitHash: plain.commitHash, outcome }) },
      { kind: 'replay', reply: { ...outcome, replayed: true } },
    ],
    [
      'a committed row of another fingerprint: DuplicateInvocationError',
      plain,
      { journal: row({ state: 'committed', commitHash: 'other', outcome }) },
      { kind: 'refuse', error: new DuplicateInvocationError('mcp:ep1:t1') },
    ],
    [
      'a committed row without its outcome: DuplicateInvocationError (fail closed)',
      plain,
      { journal: row({ state: 'committed', commitHash: plain.commitHash, outcome: null }) },
      { kind: 'refuse', error: new DuplicateInvocationError('mcp:ep1:t1') },
    ],
    [
      'a state root not carried: ask whether it is stored (world-spec §9.1)',
      noOutput,
      { journal: null },
      { kind: 'lookup', refs: [output.hash] },
    ],
    [
      'neither named ref carried: ask for both, in field order',
      noRefs,
      { journal: null },
      { kind: 'lookup', refs: [record.hash, output.hash] },
    ],
    [
      'a state root not carried but stored: appended',
      noOutput,
      { journal: null, stored: stored(output.hash) },
      appended(noOutput),
    ],
    [
      'a state root neither carried nor stored: BadRequestError naming the field',
      noOutput,
      { journal: null, stored: stored() },
      {
        kind: 'refuse',
        error: new BadRequestError(
          `stateRoot: object ${output.hash} is neither carried by the commit nor stored`,
        ),
      },
    ],
    [
      'both unresolvable: the first field is named',
      noRefs,
      { journal: null, stored: stored() },
      {
        kind: 'refuse',
        error: new BadRequestError(
          `transitionRef: object ${record.hash} is neither carried by the commit nor stored`,
        ),
      },
    ],
    [
      'a state root carried by an earlier commit of the transaction: appended without a lookup',
      noOutput,
      { journal: null, carriedBefore: new Set([output.hash]) },
      appended(noOutput),
    ],
  ])('%s', (_case, prepared, facts, expected) => {
    const decision = decideToolCommit(prepared, { head, ...facts });
    expect(decision).toEqual(expected);
    if (decision.kind === 'refuse' && expected.kind === 'refuse') {
      expect(decision.error).toBeInstanceOf(expected.error.constructor);
      expect(decision.error.message).toBe(expected.error.message);
    }
  });

  it('chains entryIndex = head + 1, prevEntryHash = head entry hash, revision = head + 1', () => {
    const decision = decideToolCommit(plain, { head, journal: null });
    expect(decision.kind === 'append' && decision.reply).toMatchObject({
      entryIndex: 5,
      prevEntryHash: head.entryHash,
      revision: 5,
      replayed: false,
    });
  });
});
