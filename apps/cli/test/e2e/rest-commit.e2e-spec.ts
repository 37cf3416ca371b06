/**
 * World-spec §11 scenarios 3, 4 and 7 (world-spec §5.10): POST /v1/commit needs a session holding
 * the commit grant (DESIGN.md §3), appends with compare-and-append on observedHead (409
 * HeadConflict with both heads), and REST receipts — against a booted World in both run modes.
 * Genesis is automatic here (DESIGN.md §7.3), so the REST "genesis" of the reference becomes a
 * commit on the current head. The session's commits name its episode (writtenBy
 * `episode:ep1/quickstart`, ids `rest:ep1:<id>`).
 */
import { entryHash, makeJsonObject, toWireObject, worldRef, type Ref } from '@world/canonical';
import { MODES, startTestSystem, type TestSystem } from '../support/system.js';

/** What the session's commits name as their writer (DESIGN.md §3). */
const WRITTEN_BY = 'episode:ep1/quickstart';

describe.each(MODES)('REST commits and receipts (%s mode)', (mode) => {
  let w: TestSystem;
  let token: string;

  beforeAll(async () => {
    w = await startTestSystem(mode);
    await w.episode('ep1');
    token = await w.session('ep1', [
      { effect: 'Workspace.Read', scope: 'worktree', budget: 1 },
      { effect: 'World.Commit', scope: 'log', budget: 1 },
    ]);
  });
  afterAll(async () => {
    await w?.close();
  });

  /** A valid commit body on the current head, carrying one fact object. */
  const commitBody = async (label: string, invocationId?: string) => {
    const head = (await w.get('/v1/head', token)).text as Ref;
    const world = (await w.get(`/v1/worlds/${head}`, token)).json;
    const prev = (await w.get(`/v1/log/${world.revision}`, token)).json;
    const fact = makeJsonObject('world/demo/fact', WRITTEN_BY, { label });
    const header = {
      entryIndex: world.revision + 1,
      semanticsEpoch: 1,
      transitionFn: fact.hash,
      interpreter: fact.hash,
      prevEntryHash: prev.entryHash,
      writtenBy: WRITTEN_BY,
    };
    const hash = entryHash(header, fact.hash);
    const next = { revision: world.revision + 1, stateRoot: fact.hash, logHead: hash };
    return {
      ...(invocationId === undefined ? {} : { invocationId }),
      observedHead: head,
      objects: [toWireObject(fact)],
      nextWorld: { ref: worldRef(next), ...next },
      entry: { header, entryHash: hash, transitionRef: fact.hash },
    };
  };
  const post = (body: unknown, auth: string | null = `Bearer ${token}`) =>
    fetch(`${w.url}/v1/commit`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(auth === null ? {} : { authorization: auth }),
      },
      body: JSON.stringify(body),
    });

  it('scenario 3: a commit requires a session', async () => {
    const body = await commitBody('s3');
    const absent = await post(body, null);
    expect(absent.status).toBe(401);
    expect(await absent.json()).toEqual({
      error: {
        class: 'SessionAbsent',
        message: 'a session credential is required: no Authorization Bearer header was present',
      },
    });
    const malformed = await post(body, 'Bearer xyz');
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: { class: string } }).error.class).toBe(
      'InvalidSession',
    );
    const unknown = await post(body, `Bearer ${'b'.repeat(64)}`);
    expect(unknown.status).toBe(401);
    expect(((await unknown.json()) as { error: unknown }).error).toEqual({
      class: 'SessionUnknown',
      message: 'unknown session credential',
    });
  });

  it('scenario 4: a commit lands, the head moves, and the identical resend conflicts with both heads', async () => {
    const body = await commitBody('s4');
    const ok = await post(body);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ selectedHead: body.nextWorld.ref });
    const head = await w.get('/v1/head', token);
    expect([head.status, head.contentType.startsWith('text/plain'), head.text]).toEqual([
      200,
      true,
      body.nextWorld.ref,
    ]);
    const again = await post(body);
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: unknown }).error).toEqual({
      class: 'HeadConflict',
      message: expect.any(String),
      observedHead: body.observedHead,
      selectedHead: body.nextWorld.ref,
    });
    expect((await w.get('/v1/head', token)).text).toBe(body.nextWorld.ref);
  });

  it('scenario 7: receipts answer rest: ids only, and resolve to the committed world', async () => {
    const foo = await w.get('/v1/receipts/foo', token);
    expect([foo.status, foo.json]).toEqual([
      400,
      { error: { class: 'BadRequest', message: 'receipt id must be rest:<id>' } },
    ]);
    expect((await w.get('/v1/receipts/rest:ep1:demo-1', token)).json).toEqual({
      invocationId: 'rest:ep1:demo-1',
      state: 'not-started',
    });
    const body = await commitBody('s7', 'rest:ep1:demo-1');
    expect((await post(body)).status).toBe(200);
    expect((await w.get('/v1/receipts/rest:ep1:demo-1', token)).json).toEqual({
      invocationId: 'rest:ep1:demo-1',
      state: 'resolved',
      resultRef: body.nextWorld.ref,
    });
    const resend = await post(body);
    expect([resend.status, await resend.json()]).toEqual([
      200,
      { selectedHead: body.nextWorld.ref },
    ]);
  });

  it('refuses a payload that does not match its hash with 400 and writes nothing', async () => {
    const body = await commitBody('tampered');
    body.objects[0]!.payload = Buffer.from('{"label":"other"}').toString('base64');
    const headBefore = (await w.get('/v1/head', token)).text;
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { class: string } }).error.class).toBe('BadRequest');
    expect((await w.get('/v1/head', token)).text).toBe(headBefore);
  });

  it('refuses an invocation id outside rest:, unknown fields and trailing values', async () => {
    const body = await commitBody('ids');
    expect((await post({ ...body, invocationId: 'a2a:ep1:x' })).status).toBe(400);
    expect((await post({ ...body, extra: 1 })).status).toBe(400);
    const trailing = await fetch(`${w.url}/v1/commit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: `${JSON.stringify(body)} {}`,
    });
    expect(trailing.status).toBe(400);
  });

  it('serves the registry heads: the tool registry the planner published and the epoch registry', async () => {
    const tools = await w.get('/v1/registry/world/transition-registry/v1', token);
    expect(tools.status).toBe(200);
    expect(tools.json).toEqual({
      name: 'world/transition-registry/v1',
      head: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    });
    const registry = await w.payload(tools.json.head, token);
    expect(registry.descriptors.map((d: { id: string }) => d.id)).toEqual([
      'ailang-read',
      'ailang-write',
      'ailang-edit',
      'ailang-check',
      'ailang-run',
      'builtins-search',
      'examples-search',
      'ailang-cli',
    ]);
    const epochs = await w.get('/v1/registry/world/epoch-registry/v1', token);
    expect(epochs.json.name).toBe('world/epoch-registry/v1');
    const missing = await w.get('/v1/registry/no/such/registry', token);
    expect([missing.status, missing.json]).toEqual([
      404,
      { error: { class: 'NotFound', message: 'registry head not found' } },
    ]);
  });
});
