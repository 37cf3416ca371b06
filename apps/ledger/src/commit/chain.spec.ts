import {
  entryHash,
  makeJsonObject,
  refOf,
  toWireObject,
  worldRef,
  type Ref,
} from '@world/canonical';
import { BadRequestError, HeadConflictError } from '@world/contracts';
import {
  chainToolCommit,
  checkCoordinatorInvocationId,
  checkRestCommit,
  checkRestInvocationId,
  commitHashOf,
  nextLink,
  parseObservedHead,
  verifyWireObjects,
  type HeadPosition,
  type RestCommitRequest,
  type ToolCommitRequest,
} from './chain.js';

const r = (label: string): Ref => refOf(label);

const head: HeadPosition = {
  worldRef: r('world-4'),
  entryIndex: 4,
  entryHash: r('entry-4'),
  revision: 4,
};

function validRest(): RestCommitRequest {
  const header = {
    entryIndex: 5,
    semanticsEpoch: 1,
    transitionFn: r('fn'),
    interpreter: r('interp'),
    prevEntryHash: head.entryHash,
    writtenBy: 'operator/quickstart',
  };
  const hash = entryHash(header, r('record'));
  const shape = { revision: 5, stateRoot: r('output'), logHead: hash };
  return {
    author: { kind: 'operator' },
    invocationId: 'rest:demo-1',
    observedHead: head.worldRef,
    objects: [],
    nextWorld: { ref: worldRef(shape), ...shape },
    entry: { header, entryHash: hash, transitionRef: r('record') },
  };
}

describe('nextLink (DESIGN.md §7.2)', () => {
  it('places the next entry at head + 1, linked to the head entry hash, at revision + 1', () => {
    expect(nextLink(head)).toEqual({ entryIndex: 5, prevEntryHash: r('entry-4'), revision: 5 });
  });
});

describe('chainToolCommit (DESIGN.md §4, §7.1)', () => {
  const request: ToolCommitRequest = {
    invocationId: 'mcp:ep1:t1',
    writtenBy: 'coordinator:mcp',
    semanticsEpoch: 1,
    transitionFn: r('fn'),
    interpreter: r('interp'),
    transitionRef: r('record'),
    stateRoot: r('output'),
    objects: [],
  };

  it('assigns index and previous hash from the head and hashes the entry and world', () => {
    const { entry, world } = chainToolCommit(head, request);
    const header = {
      entryIndex: 5,
      semanticsEpoch: 1,
      transitionFn: r('fn'),
      interpreter: r('interp'),
      prevEntryHash: r('entry-4'),
      writtenBy: 'coordinator:mcp',
    };
    const hash = entryHash(header, r('record'));
    expect(entry).toEqual({ header, entryHash: hash, transitionRef: r('record') });
    expect(world).toEqual({
      ref: worldRef({ revision: 5, stateRoot: r('output'), logHead: hash }),
      revision: 5,
      stateRoot: r('output'),
      logHead: hash,
    });
  });
});

describe('checkRestCommit (world-spec §5.10, DESIGN.md §7.2)', () => {
  it('accepts a commit that extends the selected head', () => {
    expect(() => checkRestCommit(head, validRest())).not.toThrow();
  });

  it('refuses a stale observedHead with a HeadConflict carrying both heads (world-spec §5.10)', () => {
    const stale = { ...validRest(), observedHead: r('world-3') };
    const err = (() => {
      try {
        checkRestCommit(head, stale);
      } catch (e) {
        return e;
      }
    })() as HeadConflictError;
    expect(err).toBeInstanceOf(HeadConflictError);
    expect(err.details()).toEqual({ observedHead: r('world-3'), selectedHead: r('world-4') });
  });

  it('refuses the empty observedHead once genesis exists (DESIGN.md §7.3)', () => {
    expect(() => checkRestCommit(head, { ...validRest(), observedHead: '' })).toThrow(
      HeadConflictError,
    );
  });

  // Each row breaks one law; the message names the field and the value it must have.
  const rows: Array<
    [string, (c: RestCommitRequest) => RestCommitRequest, (c: RestCommitRequest) => string]
  > = [
    [
      'density: entryIndex must be head + 1 (DESIGN.md §7.2, incident 16)',
      (c) => ({ ...c, entry: { ...c.entry, header: { ...c.entry.header, entryIndex: 7 } } }),
      () => "entry.header.entryIndex must be 5 (the selected head's entry index + 1), got 7",
    ],
    [
      'linkage: prevEntryHash must be the head entry hash (DESIGN.md §7.2)',
      (c) => ({
        ...c,
        entry: { ...c.entry, header: { ...c.entry.header, prevEntryHash: r('other') } },
      }),
      () =>
        `entry.header.prevEntryHash must be ${r('entry-4')} (the selected head's entry hash), got ${r('other')}`,
    ],
    [
      'entryHash must recompute (DESIGN.md §4)',
      (c) => ({ ...c, entry: { ...c.entry, entryHash: r('forged') } }),
      (c) =>
        `entry.entryHash must be ${c.entry.entryHash} (sha256 of the canonical entry), got ${r('forged')}`,
    ],
    [
      'nextWorld.logHead must be the entry hash (world-spec §2.12)',
      (c) => ({ ...c, nextWorld: { ...c.nextWorld, logHead: r('elsewhere') } }),
      (c) =>
        `nextWorld.logHead must be ${c.entry.entryHash} (the entry's hash), got ${r('elsewhere')}`,
    ],
    [
      'nextWorld.revision must be head revision + 1 (world-spec §2.12)',
      (c) => ({ ...c, nextWorld: { ...c.nextWorld, revision: 9 } }),
      () => "nextWorld.revision must be 5 (the selected head's revision + 1), got 9",
    ],
    [
      'nextWorld.ref must recompute (DESIGN.md §4)',
      (c) => ({ ...c, nextWorld: { ...c.nextWorld, ref: r('not-the-world') } }),
      (c) =>
        `nextWorld.ref must be ${c.nextWorld.ref} (sha256 of the canonical world), got ${r('not-the-world')}`,
    ],
  ];

  it.each(rows)('refuses a commit breaking %s', (_law, mutate, message) => {
    const valid = validRest();
    expect(() => checkRestCommit(head, mutate(valid))).toThrow(new BadRequestError(message(valid)));
  });
});

describe('parseObservedHead (world-spec §5.10, incident 23)', () => {
  it.each<[string, string]>([
    ['', ''],
    [r('h'), r('h')],
  ])('accepts %j', (text, expected) => {
    expect(parseObservedHead(text)).toBe(expected);
  });

  it.each<[string, string]>([
    ['sha256:abc', 'observedHead: digest must be 64 hex characters'],
    [`sha256:${'0'.repeat(64)}`, 'observedHead: is the zero ref'],
    [`md5:${'a'.repeat(64)}`, 'observedHead: has unknown algorithm "md5"'],
    [`sha256:${'A'.repeat(64)}`, 'observedHead: digest must be lowercase hex'],
  ])('refuses %j naming the field', (text, message) => {
    expect(() => parseObservedHead(text)).toThrow(new BadRequestError(message));
  });
});

describe('invocation id namespaces (world-internals §5.3, world-spec §5.10)', () => {
  it.each<[string | undefined, string | null]>([
    [undefined, null],
    ['rest:demo-1', 'rest:demo-1'],
    ['rest:a:b.c_d-e', 'rest:a:b.c_d-e'],
  ])('accepts REST id %j', (id, expected) => {
    expect(checkRestInvocationId(id)).toBe(expected);
  });

  it.each(['demo-1', 'rest:', 'a2a:ep1:t1', 'rest:has space'])('refuses REST id %j', (id) => {
    expect(() => checkRestInvocationId(id)).toThrow(
      new BadRequestError(
        `invocationId must be rest:<id> with 1-128 characters of [A-Za-z0-9._:-] after the prefix, got "${id}"`,
      ),
    );
  });

  it.each(['a2a:ep1:task-1', 'mcp:ep-2:T.1_x'])('accepts coordinator id %j', (id) => {
    expect(checkCoordinatorInvocationId(id)).toBe(id);
  });

  it.each(['rest:x', 'effect:ep1:0', 'mcp:EP:t', 'a2a:ep1:'])('refuses coordinator id %j', (id) => {
    expect(() => checkCoordinatorInvocationId(id)).toThrow(
      new BadRequestError(
        `invocationId must be a2a:<episode>:<task> or mcp:<episode>:<task>, got "${id}"`,
      ),
    );
  });
});

describe('verifyWireObjects (world-spec §2.13, DESIGN.md §7.5)', () => {
  const good = toWireObject(
    makeJsonObject('world/invocation-input/v1', 'coordinator:mcp', { a: 1 }),
  );

  it('decodes verified objects and keeps the first of a repeated hash', () => {
    const other = { ...good, provenance: 'someone-else' };
    const objects = verifyWireObjects([good, other]);
    expect(objects).toHaveLength(1);
    expect(objects[0]!.provenance).toBe('coordinator:mcp');
    expect(objects[0]!.payload.toString('utf8')).toBe('{"a":1}');
  });

  it.each<[string, (w: typeof good) => typeof good, string]>([
    [
      'a payload that does not hash to its hash',
      (w) => ({ ...w, payload: Buffer.from('{"a":2}').toString('base64') }),
      `objects[1]: object hash ${good.hash} does not match its payload (sha256 ${refOf('{"a":2}')})`,
    ],
    [
      'a payload that is not strict base64',
      (w) => ({ ...w, payload: 'e30' }),
      'objects[1].payload: must be standard base64 with padding',
    ],
    [
      'a zero interface hash',
      (w) => ({ ...w, interfaceHash: `sha256:${'0'.repeat(64)}` as Ref }),
      'objects[1].interfaceHash: is the zero ref',
    ],
    [
      'a malformed semantic id',
      (w) => ({ ...w, semanticId: 'has space' }),
      'objects[1].semanticId: must be 1-256 characters of [A-Za-z0-9._:/-]',
    ],
  ])('refuses %s, naming objects[i]', (_case, mutate, message) => {
    expect(() => verifyWireObjects([good, mutate(good)])).toThrow(new BadRequestError(message));
  });
});

describe('commitHashOf (world-internals §5.3)', () => {
  it('fingerprints the canonical request: key order does not matter, content does', () => {
    const a = validRest();
    const reordered = JSON.parse(
      JSON.stringify({
        entry: a.entry,
        author: a.author,
        nextWorld: a.nextWorld,
        objects: a.objects,
        observedHead: a.observedHead,
        invocationId: a.invocationId,
      }),
    );
    expect(commitHashOf(reordered)).toBe(commitHashOf(a));
    expect(commitHashOf(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(commitHashOf({ ...a, observedHead: r('x') })).not.toBe(commitHashOf(a));
    expect(commitHashOf({ ...a, author: { kind: 'episode', episodeId: 'ep1' } })).not.toBe(
      commitHashOf(a),
    );
  });

  it('treats an absent invocation id as absent', () => {
    const { invocationId: _id, ...anonymous } = validRest();
    expect(commitHashOf({ ...anonymous, invocationId: undefined })).toBe(commitHashOf(anonymous));
  });
});
