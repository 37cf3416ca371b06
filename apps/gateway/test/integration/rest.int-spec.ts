import { InvalidRefError, encodeBase64, refOf } from '@world/canonical';
import { COMMIT_BODY_MAX_BYTES, HeadConflictError, MESSAGES, type ReplyOf } from '@world/contracts';
import { COMMIT_FORBIDDEN_MESSAGE } from '../../src/auth/authenticator.js';
import { InProcessBus } from '@world/runtime';
import { startGateway } from '../../src/index.js';
import { hex, ref, startHarness, type Harness } from './fake-world.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SESSION = hex('a');
const UNKNOWN = hex('8');
const EXPIRED = hex('e');
/** A session of ep1 holding the commit grant (DESIGN.md §3). */
const COMMITTER = hex('c');
/** A session whose commit grant has a budget of 0: it withholds the right. */
const ZERO_COMMITTER = hex('d');
const EP1 = { kind: 'episode', episodeId: 'ep1' } as const;

const entry = (i: number): ReplyOf<'ledger.log.entry'> => ({
  header: {
    entryIndex: i,
    semanticsEpoch: 1,
    transitionFn: ref('1'),
    interpreter: ref('2'),
    prevEntryHash: ref('3'),
    writtenBy: 'coordinator:mcp',
  },
  entryHash: ref('4'),
  transitionRef: ref('5'),
});

const payload = Buffer.from('{"x":1}');
const OBJECT = {
  hash: refOf(payload),
  interfaceHash: ref('6'),
  semanticId: 'world/effect-record/v1',
  provenance: 'host/broker',
  payload: encodeBase64(payload),
};

/** A valid genesis commit body (world-spec §5.10). */
function genesisBody(extra: Record<string, unknown> = {}) {
  return {
    invocationId: 'rest:demo-1',
    observedHead: '',
    objects: [OBJECT],
    nextWorld: { ref: ref('7'), revision: 0, stateRoot: OBJECT.hash, logHead: ref('4') },
    entry: entry(0),
    ...extra,
  };
}

describe('the /v1 routes against a fake ledger, broker and planner', () => {
  let h: Harness;
  let base: string;

  beforeAll(async () => {
    h = await startHarness({ dbPath: '/srv/world/world.db' });
    base = `${h.gateway.url}/v1`;
    h.world.addSession(SESSION, [['Workspace.Read', 5]]);
    h.world.addSession(EXPIRED, [['Workspace.Read', 5]], { state: 'expired' });
    h.world.addSession(COMMITTER, [
      ['Workspace.Read', 5],
      ['World.Commit', 1, 'log'],
    ]);
    h.world.addSession(ZERO_COMMITTER, [['World.Commit', 0, 'log']]);
  });

  afterAll(async () => {
    await h.close();
  });

  beforeEach(() => {
    h.world.calls.length = 0;
    h.log.lines.length = 0;
  });

  const get = (path: string, token: string | null = SESSION) =>
    fetch(`${base}${path}`, {
      headers: token === null ? {} : { authorization: `Bearer ${token}` },
    });
  const answer = async (res: Response) => [res.status, await res.json()];

  describe('GET /v1/health (world-spec §5.2, §11 scenario 1)', () => {
    it('answers without a credential, with the planner’s interpreter pin', async () => {
      expect(await answer(await get('/health', null))).toEqual([
        200,
        {
          status: 'ok',
          daemon_version: '0.1.0',
          db_path: '/srv/world/world.db',
          interpreter_ref: ref('2'),
          interpreter_version: 'world-planner 0.1.0 (node v20)',
        },
      ]);
    });
  });

  describe('read access (DESIGN.md §7.5, world-spec §6.1 REST column)', () => {
    const rows: Array<[string, string | null, number, string, string]> = [
      ['absent', null, 401, 'SessionAbsent', MESSAGES.sessionAbsent],
      ['malformed', 'xyz', 400, 'InvalidSession', MESSAGES.sessionMalformed],
      ['unknown', UNKNOWN, 401, 'SessionUnknown', MESSAGES.sessionUnknown],
      ['expired', EXPIRED, 401, 'SessionExpired', MESSAGES.sessionExpired],
    ];
    it.each(rows)(
      'refuses a read with an %s credential',
      async (_row, token, status, cls, message) => {
        expect(await answer(await get('/log', token))).toEqual([
          status,
          { error: { class: cls, message } },
        ]);
        expect(h.world.callsOf('ledger.log.range')).toEqual([]);
      },
    );

    it('admits a live session', async () => {
      expect((await get('/log')).status).toBe(200);
    });

    it('admits the operator credential', async () => {
      expect((await get('/log', h.operatorToken)).status).toBe(200);
    });
  });

  describe('GET /v1/head (world-spec §5.3, §11 scenario 2)', () => {
    it('answers 404 before genesis', async () => {
      h.world.head = { worldRef: null, world: null, entryIndex: null };
      expect(await answer(await get('/head'))).toEqual([
        404,
        { error: { class: 'NotFound', message: 'no world head has been selected yet' } },
      ]);
    });

    it('answers the selected head as text/plain', async () => {
      h.world.head = { worldRef: ref('7'), world: null, entryIndex: 0 };
      const res = await get('/head');
      expect([res.status, res.headers.get('content-type'), await res.text()]).toEqual([
        200,
        'text/plain; charset=utf-8',
        ref('7'),
      ]);
    });
  });

  describe('GET /v1/worlds/{ref} (world-spec §5.4)', () => {
    it('answers a world row', async () => {
      const world = { ref: ref('7'), revision: 0, stateRoot: ref('8'), logHead: ref('4') };
      h.world.worlds.set(ref('7'), world);
      expect(await answer(await get(`/worlds/${ref('7')}`))).toEqual([200, world]);
    });

    it('answers 404 world not found', async () => {
      expect(await answer(await get(`/worlds/${ref('b')}`))).toEqual([
        404,
        { error: { class: 'NotFound', message: 'world not found' } },
      ]);
    });

    it('refuses a malformed ref with 400 naming the field', async () => {
      expect(await answer(await get('/worlds/sha256:ABC'))).toEqual([
        400,
        { error: { class: 'BadRequest', message: 'ref: digest must be 64 hex characters' } },
      ]);
      expect(h.world.callsOf('ledger.world.get')).toEqual([]);
    });
  });

  describe('GET /v1/objects/{ref} (world-spec §5.5)', () => {
    const head = {
      hash: OBJECT.hash,
      interfaceHash: OBJECT.interfaceHash,
      semanticId: OBJECT.semanticId,
      provenance: OBJECT.provenance,
    };

    beforeAll(() => {
      h.world.ledgerObjects.set(OBJECT.hash, OBJECT);
      h.world.brokerObjects.set(ref('c'), {
        ...OBJECT,
        hash: ref('c'),
        semanticId: 'world/effect-request/v1',
      });
    });

    it('leaves the payload key out unless asked', async () => {
      expect(await answer(await get(`/objects/${OBJECT.hash}`))).toEqual([200, head]);
    });

    it('adds the base64 payload with ?payload=true', async () => {
      expect(await answer(await get(`/objects/${OBJECT.hash}?payload=true`))).toEqual([
        200,
        { ...head, payload: OBJECT.payload },
      ]);
    });

    it('falls back to the broker for an object no commit carried', async () => {
      expect(await answer(await get(`/objects/${ref('c')}?payload=true`))).toEqual([
        200,
        { ...head, hash: ref('c'), semanticId: 'world/effect-request/v1', payload: OBJECT.payload },
      ]);
      const calls = h.world.calls.filter((c) => c.subject !== 'broker.session.resolve');
      const request = { ref: ref('c'), payload: true, scope: EP1 };
      expect(calls).toEqual([
        { subject: 'ledger.object.get', data: request },
        { subject: 'broker.object.get', data: request },
      ]);
    });

    it('reads in the operator’s scope (everything) with the operator credential', async () => {
      expect((await get(`/objects/${OBJECT.hash}`, h.operatorToken)).status).toBe(200);
      expect(h.world.callsOf('ledger.object.get')).toEqual([
        { ref: OBJECT.hash, payload: false, scope: { kind: 'all' } },
      ]);
    });

    it('answers stored bytes that do not hash to their ref 500 StoredObjectCorrupt, naming them', async () => {
      const problem = `object ${ref('e')} has bytes that hash to ${ref('f')}`;
      h.world.ledgerObjects.set(ref('e'), { ...OBJECT, hash: ref('e') });
      h.world.corrupt.set(ref('e'), problem);
      expect(await answer(await get(`/objects/${ref('e')}?payload=true`))).toEqual([
        500,
        { error: { class: 'StoredObjectCorrupt', message: `stored object corrupt: ${problem}` } },
      ]);
      expect(h.world.callsOf('broker.object.get')).toEqual([]);
      expect(h.log.lines.map((l) => [l.level, l.message, l.fields.status])).toEqual([
        ['error', 'request failed', 500],
      ]);
    });

    it('answers 404 object not found when neither holds it', async () => {
      expect(await answer(await get(`/objects/${ref('d')}`))).toEqual([
        404,
        { error: { class: 'NotFound', message: 'object not found' } },
      ]);
    });

    it('refuses the zero ref', async () => {
      expect(await answer(await get(`/objects/${ref('0')}`))).toEqual([
        400,
        { error: { class: 'BadRequest', message: 'ref: is the zero ref' } },
      ]);
    });
  });

  describe('GET /v1/effects/{ref}: the broker’s own effect records (DESIGN.md §3)', () => {
    const record = { ...OBJECT, hash: ref('b') };

    beforeAll(() => {
      h.world.brokerObjects.set(ref('b'), record);
      h.world.ledgerObjects.set(ref('a'), { ...OBJECT, hash: ref('a') });
    });

    it('answers the envelope of an effect record the broker holds, asking the broker alone', async () => {
      const { payload: _payload, ...envelope } = record;
      expect(await answer(await get(`/effects/${ref('b')}`))).toEqual([200, envelope]);
      const calls = h.world.calls.filter((c) => c.subject !== 'broker.session.resolve');
      expect(calls).toEqual([
        { subject: 'broker.object.get', data: { ref: ref('b'), payload: false, scope: EP1 } },
      ]);
    });

    it.each([
      ['only the ledger holds', ref('a')],
      ['the broker holds as another kind of object', ref('c')],
      ['nobody holds', ref('9')],
    ])('answers a record %s 404 effect record not found', async (_row, target) => {
      expect(await answer(await get(`/effects/${target}`))).toEqual([
        404,
        { error: { class: 'NotFound', message: 'effect record not found' } },
      ]);
    });
  });

  describe('GET /v1/objects/by-semantic-id/{name...} (world-spec §5.6, §11 scenario 6)', () => {
    const items = [ref('3'), ref('1'), ref('2')].map((hash) => ({
      hash,
      interfaceHash: ref('6'),
      semanticId: 'world/invocation-record/v2',
      provenance: 'coordinator:mcp',
    }));

    beforeAll(() => {
      h.world.semanticIndex = items;
    });

    it('answers an unknown name with an empty page, not 404', async () => {
      expect(await answer(await get('/objects/by-semantic-id/no/such/id'))).toEqual([
        200,
        { items: [] },
      ]);
    });

    it('answers envelopes in ascending hash order, without payloads, for a name with slashes', async () => {
      expect(await answer(await get('/objects/by-semantic-id/world/invocation-record/v2'))).toEqual(
        [200, { items: [items[1], items[2], items[0]] }],
      );
      expect(h.world.callsOf('ledger.objects.bySemanticId')).toEqual([
        { scope: EP1, semanticId: 'world/invocation-record/v2', limit: 100 },
      ]);
    });

    it('resumes strictly after `after` and caps the limit', async () => {
      expect(
        await answer(
          await get(
            `/objects/by-semantic-id/world/invocation-record/v2?after=${ref('1')}&limit=10000`,
          ),
        ),
      ).toEqual([200, { items: [items[2], items[0]] }]);
      expect(h.world.callsOf('ledger.objects.bySemanticId')).toEqual([
        { scope: EP1, semanticId: 'world/invocation-record/v2', limit: 500, after: ref('1') },
      ]);
    });

    const bad: Array<[string, string, string]> = [
      ['an empty name', '/objects/by-semantic-id', 'semantic id must not be empty'],
      ['an empty name with a slash', '/objects/by-semantic-id/', 'semantic id must not be empty'],
      [
        'a malformed after',
        '/objects/by-semantic-id/x?after=sha256:zz',
        'after: digest must be 64 hex characters',
      ],
      ['a non-integer limit', '/objects/by-semantic-id/x?limit=ten', 'limit must be an integer'],
    ];
    it.each(bad)('refuses %s with 400', async (_row, path, message) => {
      expect(await answer(await get(path))).toEqual([
        400,
        { error: { class: 'BadRequest', message } },
      ]);
    });
  });

  describe('GET /v1/log (world-spec §5.7, §5.8, §11 scenario 5)', () => {
    beforeAll(() => {
      h.world.log = [entry(0), entry(1), entry(2)];
    });

    it('answers one entry', async () => {
      expect(await answer(await get('/log/1'))).toEqual([200, entry(1)]);
    });

    it('refuses a log index that is not a non-negative integer', async () => {
      expect(await answer(await get('/log/abc'))).toEqual([
        400,
        { error: { class: 'BadRequest', message: 'log index must be a non-negative integer' } },
      ]);
    });

    it('answers 404 log entry not found past the end', async () => {
      expect(await answer(await get('/log/999999'))).toEqual([
        404,
        { error: { class: 'NotFound', message: 'log entry not found' } },
      ]);
    });

    it('answers a page from `from`', async () => {
      expect(await answer(await get('/log?from=1'))).toEqual([
        200,
        { items: [entry(1), entry(2)] },
      ]);
    });

    it('answers an empty page past the end', async () => {
      expect(await answer(await get('/log?from=999999'))).toEqual([200, { items: [] }]);
    });

    it.each([
      ['limit=0 asks for the default 100', '/log?limit=0', 100],
      ['limit=10000 is capped at 500', '/log?limit=10000', 500],
      ['no limit asks for 100', '/log', 100],
    ])('%s', async (_row, path, limit) => {
      await get(path);
      expect(h.world.callsOf('ledger.log.range')).toEqual([{ from: 0, limit }]);
    });

    it('refuses a negative from', async () => {
      expect(await answer(await get('/log?from=-1'))).toEqual([
        400,
        { error: { class: 'BadRequest', message: 'from must be a non-negative integer' } },
      ]);
    });
  });

  describe('GET /v1/registry/{name...} (world-spec §5.9)', () => {
    it('answers the registry head', async () => {
      h.world.registryHeads.set('world/epoch-registry/v1', ref('9'));
      expect(await answer(await get('/registry/world/epoch-registry/v1'))).toEqual([
        200,
        { name: 'world/epoch-registry/v1', head: ref('9') },
      ]);
    });

    it('answers 404 registry head not found', async () => {
      expect(await answer(await get('/registry/world/approvals/v1'))).toEqual([
        404,
        { error: { class: 'NotFound', message: 'registry head not found' } },
      ]);
    });
  });

  describe('GET /v1/receipts/{id} (world-spec §5.11, §11 scenario 7)', () => {
    it('refuses an id outside rest:', async () => {
      expect(await answer(await get('/receipts/foo'))).toEqual([
        400,
        { error: { class: 'BadRequest', message: 'receipt id must be rest:<id>' } },
      ]);
      expect(h.world.callsOf('ledger.receipt.get')).toEqual([]);
    });

    it('answers a resolved receipt', async () => {
      h.world.receipts.set('rest:demo-1', {
        invocationId: 'rest:demo-1',
        state: 'resolved',
        resultRef: ref('7'),
      });
      expect(await answer(await get('/receipts/rest:demo-1'))).toEqual([
        200,
        { invocationId: 'rest:demo-1', state: 'resolved', resultRef: ref('7') },
      ]);
    });

    it('answers not-started for an id never seen, asking in the session’s scope', async () => {
      expect(await answer(await get('/receipts/rest:never'))).toEqual([
        200,
        { invocationId: 'rest:never', state: 'not-started' },
      ]);
      expect(h.world.callsOf('ledger.receipt.get')).toEqual([
        { invocationId: 'rest:never', scope: EP1 },
      ]);
    });

    it('answers a receipt the scope may not read 404 receipt not found', async () => {
      h.world.hiddenReceipts.add('rest:ep2:x');
      expect(await answer(await get('/receipts/rest:ep2:x'))).toEqual([
        404,
        { error: { class: 'NotFound', message: 'receipt not found' } },
      ]);
    });
  });

  describe('POST /v1/commit (world-spec §5.10, §11 scenarios 3-4)', () => {
    const commit = (body: unknown, token: string | null = COMMITTER) =>
      fetch(`${base}/commit`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(token === null ? {} : { authorization: `Bearer ${token}` }),
        },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });

    beforeEach(() => {
      h.world.restCommit = () => ({ selectedHead: ref('7') });
    });

    it('commits through ledger.restCommit as the session’s episode and answers the selected head', async () => {
      expect(await answer(await commit(genesisBody()))).toEqual([200, { selectedHead: ref('7') }]);
      expect(h.world.callsOf('ledger.restCommit')).toEqual([{ author: EP1, ...genesisBody() }]);
    });

    it('commits as the operator with the operator credential', async () => {
      expect(await answer(await commit(genesisBody(), h.operatorToken))).toEqual([
        200,
        { selectedHead: ref('7') },
      ]);
      expect(h.world.callsOf('ledger.restCommit')).toEqual([
        { author: { kind: 'operator' }, ...genesisBody() },
      ]);
    });

    it.each([
      ['without a World.Commit grant', SESSION],
      ['whose World.Commit grant has a budget of 0', ZERO_COMMITTER],
    ])('refuses a session %s 403 Forbidden before reading the body', async (_row, token) => {
      expect(await answer(await commit('not even json', token))).toEqual([
        403,
        { error: { class: 'Forbidden', message: COMMIT_FORBIDDEN_MESSAGE } },
      ]);
      expect(h.world.callsOf('ledger.restCommit')).toEqual([]);
    });

    const sessions: Array<[string, string | null, number, string, string]> = [
      ['absent', null, 401, 'SessionAbsent', MESSAGES.commitSessionAbsent],
      ['malformed (Bearer xyz)', 'xyz', 400, 'InvalidSession', MESSAGES.sessionMalformed],
      ['unknown', UNKNOWN, 401, 'SessionUnknown', MESSAGES.sessionUnknown],
    ];
    it.each(sessions)(
      'refuses an %s session before reading the body',
      async (_row, token, status, cls, message) => {
        expect(await answer(await commit('not even json', token))).toEqual([
          status,
          { error: { class: cls, message } },
        ]);
        expect(h.world.callsOf('ledger.restCommit')).toEqual([]);
      },
    );

    it('answers a stale observedHead 409 with both heads inside the error', async () => {
      h.world.restCommit = () => {
        throw new HeadConflictError('', ref('7'));
      };
      expect(await answer(await commit(genesisBody()))).toEqual([
        409,
        {
          error: {
            class: 'HeadConflict',
            message: 'observedHead is not the selected head',
            observedHead: '',
            selectedHead: ref('7'),
          },
        },
      ]);
    });

    const bad: Array<[string, unknown, string]> = [
      ['an unknown field', genesisBody({ extra: 1 }), 'unknown field "extra"'],
      [
        'an unknown nested field',
        { ...genesisBody(), entry: { ...entry(0), note: 'x' } },
        'unknown field "entry.note"',
      ],
      ['a missing field', { ...genesisBody(), nextWorld: undefined }, 'missing field "nextWorld"'],
      [
        'a malformed ref',
        { ...genesisBody(), entry: { ...entry(0), entryHash: 'sha256:xyz' } },
        'entry.entryHash: ref digest must be 64 hex characters',
      ],
      [
        'a malformed observedHead',
        genesisBody({ observedHead: 'head' }),
        'observedHead: ref has no algorithm (expected sha256:<64 lowercase hex>)',
      ],
      [
        'an invocation id outside rest:',
        genesisBody({ invocationId: 'a2a:ep1:t' }),
        'invocationId: must be rest:<id> with 1-128 of [A-Za-z0-9._:-] after the prefix',
      ],
      [
        'a payload that is not base64',
        { ...genesisBody(), objects: [{ ...OBJECT, payload: 'not base64!' }] },
        'objects[0].payload: must be standard base64 with padding',
      ],
      ['an array', [genesisBody()], 'body must be a JSON object'],
    ];
    it.each(bad)('refuses %s with 400 BadRequest naming it', async (_row, body, message) => {
      expect(await answer(await commit(body))).toEqual([
        400,
        { error: { class: 'BadRequest', message } },
      ]);
      expect(h.world.callsOf('ledger.restCommit')).toEqual([]);
    });

    it('refuses a trailing value after the object', async () => {
      const res = await commit(`${JSON.stringify(genesisBody())} {}`);
      const body = (await res.json()) as { error: { class: string; message: string } };
      expect([
        res.status,
        body.error.class,
        body.error.message.startsWith('body is not valid JSON: '),
      ]).toEqual([400, 'BadRequest', true]);
      expect(h.world.callsOf('ledger.restCommit')).toEqual([]);
    });

    it('answers a body over COMMIT_BODY_MAX_BYTES 413 PayloadTooLarge, never reaching the ledger', async () => {
      // Larger than the commit bound leaves for a body, though under the reference's 8 MiB: it
      // could not travel in one ledger message on an 8 MiB NATS.
      const res = await commit('x'.repeat(COMMIT_BODY_MAX_BYTES + 1));
      expect(await answer(res)).toEqual([
        413,
        { error: { class: 'PayloadTooLarge', message: 'request body exceeds 6990520 bytes' } },
      ]);
      expect(h.world.callsOf('ledger.restCommit')).toEqual([]);
    });

    it('passes the ledger’s BadRequest through (content-hash mismatch, DESIGN.md §7.5)', async () => {
      h.world.restCommit = () => {
        throw new InvalidRefError('objects[0].hash', 'does not match its payload');
      };
      expect(await answer(await commit(genesisBody()))).toEqual([
        400,
        { error: { class: 'BadRequest', message: 'objects[0].hash: does not match its payload' } },
      ]);
    });

    it('answers an untyped ledger failure 500 internal store failure', async () => {
      h.world.restCommit = () => {
        throw new Error('disk full at /var/lib/world');
      };
      expect(await answer(await commit(genesisBody()))).toEqual([
        500,
        { error: { class: 'Internal', message: 'internal store failure' } },
      ]);
    });

    it('answers CommitUncertain when the ledger’s answer never arrives', async () => {
      h.world.restCommit = () => new Promise(() => undefined);
      expect(await answer(await commit(genesisBody()))).toEqual([
        503,
        {
          error: {
            class: 'CommitUncertain',
            message:
              'commit outcome is not confirmed; reconcile with GET /v1/receipts/<id> or GET /v1/log/<entryIndex> before resending',
          },
        },
      ]);
    });

    it('answers a wrong method 405', async () => {
      const res = await get('/commit');
      expect([res.status, res.headers.get('allow'), await res.json()]).toEqual([
        405,
        'POST',
        { error: { class: 'MethodNotAllowed', message: 'method GET not allowed; use POST' } },
      ]);
    });
  });

  it('answers an unknown route 404 with the envelope', async () => {
    expect(await answer(await get('/nope'))).toEqual([
      404,
      { error: { class: 'NotFound', message: 'no route GET /v1/nope' } },
    ]);
  });
});

describe('public reads (DESIGN.md §7.5)', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ publicReads: true });
    h.world.log = [entry(0)];
  });

  afterAll(async () => {
    await h.close();
  });

  it('serves GET /v1/* without a credential', async () => {
    const res = await fetch(`${h.gateway.url}/v1/log/0`);
    expect([res.status, await res.json()]).toEqual([200, entry(0)]);
  });

  it('reads objects and receipts in the scope of everything, credential or not', async () => {
    await fetch(`${h.gateway.url}/v1/objects/${ref('1')}`);
    await fetch(`${h.gateway.url}/v1/receipts/rest:ep2:x`);
    expect([h.world.callsOf('ledger.object.get'), h.world.callsOf('ledger.receipt.get')]).toEqual([
      [{ ref: ref('1'), payload: false, scope: { kind: 'all' } }],
      [{ invocationId: 'rest:ep2:x', scope: { kind: 'all' } }],
    ]);
  });

  it('still requires a session to commit', async () => {
    const res = await fetch(`${h.gateway.url}/v1/commit`, { method: 'POST', body: '{}' });
    expect([res.status, await res.json()]).toEqual([
      401,
      { error: { class: 'SessionAbsent', message: MESSAGES.commitSessionAbsent } },
    ]);
  });
});

describe('a gateway whose services do not answer', () => {
  it('answers 503 Unavailable on REST and 503 text/plain on MCP', async () => {
    const home = await mkdtemp(join(tmpdir(), 'world-gateway-'));
    const gateway = await startGateway({
      transport: { kind: 'inproc', bus: new InProcessBus() },
      bind: '127.0.0.1:0',
      worldHome: home,
      operatorToken: hex('0'),
    });
    try {
      const health = await fetch(`${gateway.url}/v1/health`);
      expect([health.status, await health.json()]).toEqual([
        503,
        {
          error: {
            class: 'Unavailable',
            message: 'a World service is unavailable; retry the request',
          },
        },
      ]);
      const mcp = await fetch(`${gateway.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${SESSION}` },
      });
      expect([mcp.status, await mcp.text()]).toEqual([
        503,
        'a World service is unavailable; retry the request',
      ]);
    } finally {
      await gateway.close();
      await rm(home, { recursive: true, force: true });
    }
  });
});
