import { makeJsonObject, refOf, toWireObject, type WorldObject } from '@world/canonical';
import { BadRequestError, type CommitAuthor } from '@world/contracts';
import type { RestCommitRequest } from './chain.js';
import { checkRestAuthorship, checkRestReferences, namesCommitter } from './rest-authorship.js';
import { writerEpisodeOf } from '../../test/writer-episode.js';

const EP1: CommitAuthor = { kind: 'episode', episodeId: 'ep1' };
const OPERATOR: CommitAuthor = { kind: 'operator' };

/** A REST commit request carrying `objects`, written by `writtenBy` (chain laws not involved). */
function request(
  author: CommitAuthor,
  writtenBy: string,
  objects: WorldObject[],
  invocationId?: string,
): RestCommitRequest {
  const ref = refOf('x');
  return {
    author,
    ...(invocationId === undefined ? {} : { invocationId }),
    observedHead: ref,
    objects: objects.map(toWireObject),
    nextWorld: { ref, revision: 1, stateRoot: ref, logHead: ref },
    entry: {
      header: {
        entryIndex: 1,
        semanticsEpoch: 1,
        transitionFn: ref,
        interpreter: ref,
        prevEntryHash: ref,
        writtenBy,
      },
      entryHash: ref,
      transitionRef: ref,
    },
  };
}

describe('namesCommitter (DESIGN.md §3: writtenBy names the caller)', () => {
  it.each<[CommitAuthor, string, boolean]>([
    [EP1, 'episode:ep1', true],
    [EP1, 'episode:ep1/quickstart', true],
    [EP1, 'episode:ep2', false],
    [EP1, 'episode:ep10', false],
    [EP1, 'episode:ep1/', false],
    [EP1, 'episode:ep1/has space', false],
    [EP1, 'coordinator:mcp', false],
    [EP1, 'operator', false],
    [OPERATOR, 'operator', true],
    [OPERATOR, 'operator/backfill-2', true],
    [OPERATOR, 'coordinator:a2a', false],
    [OPERATOR, 'episode:ep1', false],
  ])('%j writing %j → %p', (author, writtenBy, expected) => {
    expect(namesCommitter(author, writtenBy)).toBe(expected);
  });

  it.each([
    ['episode:ep1', 'ep1'],
    ['episode:ep-2/label', 'ep-2'],
    ['operator', null],
    ['coordinator:mcp', null],
  ])('the writer episode of %j is %p', (writtenBy, expected) => {
    expect(writerEpisodeOf(writtenBy)).toBe(expected);
  });
});

describe('checkRestAuthorship (DESIGN.md §3, §7.5)', () => {
  const fact = (by: string) => makeJsonObject('world/demo/fact', by, { n: 1 });
  const record = (by: string) => makeJsonObject('world/effect-record/v1', by, { n: 1 });
  type Row = [string, CommitAuthor, string, WorldObject[], string | undefined, string | null];
  const rows: Row[] = [
    [
      'a session naming its episode',
      EP1,
      'episode:ep1/q',
      [fact('episode:ep1/q')],
      undefined,
      null,
    ],
    ['the operator naming itself', OPERATOR, 'operator', [fact('operator')], 'rest:any-id', null],
    ["a session's id under its episode", EP1, 'episode:ep1', [], 'rest:ep1:deploy-1', null],
    [
      'a session claiming the coordinator',
      EP1,
      'coordinator:mcp',
      [],
      undefined,
      'entry.header.writtenBy must be "episode:ep1" or "episode:ep1/<label>" (it names the committer; coordinator:* is the coordinator\'s alone), got "coordinator:mcp"',
    ],
    [
      'the operator claiming an episode',
      OPERATOR,
      'episode:ep1',
      [],
      undefined,
      'entry.header.writtenBy must be "operator" or "operator/<label>" (it names the committer; coordinator:* is the coordinator\'s alone), got "episode:ep1"',
    ],
    [
      "a session's id outside its episode",
      EP1,
      'episode:ep1',
      [],
      'rest:demo-1',
      'invocationId must be rest:ep1:<id> (a session\'s REST commits are filed under its episode), got "rest:demo-1"',
    ],
    [
      "a session's id under another episode",
      EP1,
      'episode:ep1',
      [],
      'rest:ep2:x',
      'invocationId must be rest:ep1:<id> (a session\'s REST commits are filed under its episode), got "rest:ep2:x"',
    ],
    [
      'an effect record',
      EP1,
      'episode:ep1',
      [fact('episode:ep1'), record('episode:ep1')],
      undefined,
      "objects[1].semanticId: world/effect-record/v1 objects are written only by World's tool calls (coordinator, broker, ledger), not by POST /v1/commit",
    ],
    [
      'an object whose provenance is not the writer',
      EP1,
      'episode:ep1',
      [fact('host/broker')],
      undefined,
      'objects[0].provenance must be the entry\'s writtenBy "episode:ep1", got "host/broker"',
    ],
  ];
  it.each(rows)('%s', (_row, author, writtenBy, objects, invocationId, message) => {
    const check = () =>
      checkRestAuthorship(author, request(author, writtenBy, objects, invocationId), objects);
    if (message === null) expect(check).not.toThrow();
    else expect(check).toThrow(new BadRequestError(message));
  });
});

describe('checkRestReferences (DESIGN.md §3: a REST entry cannot present tool-call provenance)', () => {
  const ref = refOf('stored');
  it('passes a stored object of a REST semantic id', () => {
    expect(() =>
      checkRestReferences([['entry.transitionRef', ref]], new Map([[ref, 'world/demo/fact']])),
    ).not.toThrow();
  });
  it('refuses a stored invocation record, naming the field', () => {
    expect(() =>
      checkRestReferences(
        [['entry.transitionRef', ref]],
        new Map([[ref, 'world/invocation-record/v2']]),
      ),
    ).toThrow(
      new BadRequestError(
        "entry.transitionRef: world/invocation-record/v2 objects are written only by World's tool calls (coordinator, broker, ledger), not by POST /v1/commit",
      ),
    );
  });
});
