/**
 * World-spec §11 conformance scenarios for the worktree tools and the provenance routes, driven
 * over HTTP against a booted World in both run modes (scenarios 1, 2 adapted to the automatic
 * genesis, 5, 6, 8–16).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { entryHash, refOf, worldRef } from '@world/canonical';
import {
  FULL_GRANTS,
  HELLO_AIL,
  MODES,
  startTestSystem,
  type TestSystem,
} from '../support/system.js';

const READ_50 = [{ effect: 'Workspace.Read', scope: 'worktree', budget: 50 }];
const ALL_TOOLS = [
  'ailang-read',
  'ailang-write',
  'ailang-edit',
  'ailang-check',
  'ailang-run',
  'builtins-search',
  'examples-search',
  'ailang-cli',
];
const PATH_REFUSAL = (p: string) =>
  `path "${p}" refused: it must be relative and non-empty, with no ".." segment and no leading "-"`;

describe.each(MODES)('MCP and /v1 conformance (%s mode)', (mode) => {
  let w: TestSystem;
  let token: string;
  let worktree: string;
  /** how far the gateway's clock runs ahead of the wall clock (ms) */
  let gatewayAheadMs = 0;

  beforeAll(async () => {
    w = await startTestSystem(mode, { gatewayClock: () => Date.now() + gatewayAheadMs });
    worktree = await w.episode('ep1', { 'hello.ail': HELLO_AIL, 'three.txt': 'x x x\n' });
    token = await w.session('ep1', FULL_GRANTS);
  });
  afterAll(async () => {
    await w?.close();
  });

  const logLength = async () => {
    const head = await w.get('/v1/head');
    const world = await w.get(`/v1/worlds/${head.text}`);
    return world.json.revision + 1;
  };

  it('scenario 1: GET /v1/health reports the interpreter every coordinator entry names', async () => {
    const health = await w.get('/v1/health', null);
    expect(health.status).toBe(200);
    expect(Object.keys(health.json).sort()).toEqual([
      'daemon_version',
      'db_path',
      'interpreter_ref',
      'interpreter_version',
      'status',
    ]);
    expect(health.json.status).toBe('ok');
    expect(health.json.daemon_version).toBe('0.1.0');
    expect(health.json.interpreter_ref).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(health.json.interpreter_version).toBe(`@world/planner 0.1.0 (node ${process.version})`);
    await w.call(token, 'ailang-read', { path: 'hello.ail' });
    const head = await w.get('/v1/head');
    const world = await w.get(`/v1/worlds/${head.text}`);
    const entry = await w.get(`/v1/log/${world.json.revision}`);
    expect(entry.json.header.writtenBy).toBe('coordinator:mcp');
    expect(entry.json.header.interpreter).toBe(health.json.interpreter_ref);
  });

  it('scenario 2 (adapted): a fresh store already holds the genesis world at revision 0', async () => {
    const genesis = await w.get('/v1/log/0');
    expect(genesis.status).toBe(200);
    expect(genesis.json.header).toMatchObject({
      entryIndex: 0,
      semanticsEpoch: 1,
      writtenBy: 'ledger:genesis',
    });
    expect(genesis.json.header.prevEntryHash).toBe(refOf(''));
    expect(genesis.json.entryHash).toBe(entryHash(genesis.json.header, genesis.json.transitionRef));
    const head = await w.get('/v1/head');
    expect(head.status).toBe(200);
    expect(head.contentType).toMatch(/^text\/plain/);
    expect(head.text).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('scenario 5: log route validation', async () => {
    const bad = await w.get('/v1/log/abc');
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({
      error: { class: 'BadRequest', message: 'log index must be a non-negative integer' },
    });
    const missing = await w.get('/v1/log/999999');
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ error: { class: 'NotFound', message: 'log entry not found' } });
    expect((await w.get('/v1/log?from=999999')).json).toEqual({ items: [] });
    for (let i = 0; i < 3; i++) await w.call(token, 'ailang-read', { path: 'nope.ail' });
    const length = await logLength();
    const page = await w.get('/v1/log?limit=0');
    expect(page.json.items.length).toBe(Math.min(length, 100));
    expect(
      page.json.items.map((e: { header: { entryIndex: number } }) => e.header.entryIndex),
    ).toEqual([...Array(Math.min(length, 100)).keys()]);
    expect((await w.get('/v1/log?limit=10000')).json.items.length).toBe(Math.min(length, 500));
  });

  it('scenario 6: semantic-id lookup in ascending hash order without payloads', async () => {
    expect((await w.get('/v1/objects/by-semantic-id/no/such/id')).json).toEqual({ items: [] });
    await w.call(token, 'ailang-read', { path: 'hello.ail' });
    const found = await w.get('/v1/objects/by-semantic-id/world/invocation-record/v2');
    expect(found.status).toBe(200);
    const hashes = found.json.items.map((i: { hash: string }) => i.hash);
    expect(hashes.length).toBeGreaterThanOrEqual(2);
    expect([...hashes].sort()).toEqual(hashes);
    for (const item of found.json.items) {
      expect(Object.keys(item).sort()).toEqual([
        'hash',
        'interfaceHash',
        'provenance',
        'semanticId',
      ]);
      expect(item.semanticId).toBe('world/invocation-record/v2');
      expect(item.provenance).toBe('coordinator:mcp');
    }
  });

  it('scenario 8: MCP checks authorization before the transport', async () => {
    const absent = await fetch(`${w.url}/mcp`, { method: 'POST', body: 'not even json' });
    expect(absent.status).toBe(401);
    expect(absent.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(absent.headers.get('www-authenticate')).toBe('Bearer');
    expect(await absent.text()).toBe(
      'session credential is absent: send Authorization: Bearer <session-credential>',
    );
    const malformed = await w.mcp('xyz', 'tools/list', {});
    expect([malformed.status, malformed.text]).toEqual([
      401,
      'malformed Authorization header: expected Bearer <64-hex-credential>',
    ]);
    const unknown = await w.mcp('a'.repeat(64), 'tools/list', {});
    expect([unknown.status, unknown.text]).toEqual([401, 'unknown session credential']);
    const short = await w.session('ep1', READ_50, 1);
    // The gateway sees the session's one second pass (world-spec §2.2: expired at expiresAt).
    gatewayAheadMs = 1_100;
    try {
      const expired = await w.mcp(short, 'tools/list', {});
      expect([expired.status, expired.text]).toEqual([401, 'session credential has expired']);
    } finally {
      gatewayAheadMs = 0;
    }
  });

  it('scenario 9: MCP header checks', async () => {
    const accept = await w.mcp(token, 'tools/list', {}, { accept: 'application/json' });
    expect([accept.status, accept.text]).toEqual([
      400,
      'Accept must list both application/json and text/event-stream',
    ]);
    const ctype = await w.mcp(token, 'tools/list', {}, { 'content-type': 'text/plain' });
    expect([ctype.status, ctype.text]).toEqual([400, 'Content-Type must be application/json']);
    const version = await w.mcp(token, 'tools/list', {}, { 'mcp-protocol-version': '2024-01-01' });
    expect(version.status).toBe(400);
  });

  it('scenario 10: tools/list is filtered by the live grants', async () => {
    const names = async (t: string) =>
      ((await w.mcp(t, 'tools/list', {})).body!.result!.tools as Array<{ name: string }>).map(
        (x) => x.name,
      );
    expect(
      await names(
        await w.session('ep1', [{ effect: 'Workspace.Read', scope: 'worktree', budget: 5 }]),
      ),
    ).toEqual(['ailang-read']);
    expect(await names(token)).toEqual(ALL_TOOLS);
    expect(
      await names(
        await w.session('ep1', [{ effect: 'Workspace.Read', scope: 'worktree', budget: 0 }]),
      ),
    ).toEqual(['ailang-read']);
  });

  it('scenario 10 through the official clients of both eras', async () => {
    const readOnly = await w.session('ep1', READ_50);
    const v1 = await w.v1Client(readOnly);
    expect((await v1.listTools()).tools.map((t) => t.name)).toEqual(['ailang-read']);
    const v2 = await w.v2Client(token);
    expect((await v2.listTools()).tools.map((t) => t.name)).toEqual(ALL_TOOLS);
  });

  it('scenario 11: a tool outside the surface is -32602 and writes nothing', async () => {
    const readOnly = await w.session('ep1', READ_50);
    const before = await logLength();
    const answer = await w.mcp(readOnly, 'tools/call', {
      name: 'ailang-write',
      arguments: { path: 'x', content: 'y' },
    });
    expect(answer.body!.error).toEqual({ code: -32602, message: 'unknown tool "ailang-write"' });
    expect(await logLength()).toBe(before);
    expect(existsSync(join(worktree, 'x'))).toBe(false);
  });

  it('scenario 12: a successful read, its record, and the same plan on a second call', async () => {
    const ep = 'ep12';
    await w.episode(ep, { 'hello.ail': HELLO_AIL });
    const t = await w.session(ep, FULL_GRANTS);
    const before = await logLength();
    const answer = await w.mcp(t, 'tools/call', {
      name: 'ailang-read',
      arguments: { path: 'hello.ail' },
    });
    expect(answer.status).toBe(200);
    expect(answer.contentType).toMatch(/^text\/event-stream/);
    const result = answer.body!.result!;
    const out = result.structuredContent as Record<string, any>;
    expect(Object.keys(out).sort()).toEqual(['content', 'ok', 'policy_digest', 'tool', 'world']);
    expect(out.content).toBe(HELLO_AIL);
    expect(out.ok).toBe(true);
    expect(out.tool).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(out.policy_digest).toMatch(/^[0-9a-f]{64}$/);
    expect(out.world.effects).toEqual([
      { id: 'e1', status: 'ok', record: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) },
    ]);
    expect(out.world.plan).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(result.content).toEqual([{ type: 'text', text: expect.any(String) }]);
    expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toEqual(out);
    expect(await logLength()).toBe(before + 1);
    const record = await w.payload(out.world.effects[0].record, t);
    expect(record).toMatchObject({
      effect: 'Workspace.Read',
      scope: 'worktree',
      cost: 1,
      allowed: true,
      failed: false,
      denial: '',
      budgetBefore: 50,
      budgetAfter: 49,
    });
    const again = (await w.call(t, 'ailang-read', { path: 'hello.ail' })) as Record<string, any>;
    expect(again.world.plan).toBe(out.world.plan);
    expect(again.world.effects[0].record).not.toBe(out.world.effects[0].record);
  });

  it('scenario 13: plan refusals are committed and free', async () => {
    const ep = 'ep13';
    await w.episode(ep, { 'hello.ail': HELLO_AIL });
    const t = await w.session(ep, FULL_GRANTS);
    const before = await logLength();
    const refused = (await w.call(t, 'ailang-read', { path: 'hello.ail', limit: 5 })) as Record<
      string,
      any
    >;
    expect(refused).toEqual({
      ok: false,
      refused: 'unknown argument "limit"; ailang-read admits only: path',
      world: { effects: [], plan: expect.stringMatching(/^sha256:/) },
    });
    expect(await logLength()).toBe(before + 1);
    for (const p of ['../x.ail', '/etc/hosts', '-x', '']) {
      expect((await w.call(t, 'ailang-read', { path: p })).refused).toBe(PATH_REFUSAL(p));
    }
    expect((await w.call(t, 'ailang-read', {})).refused).toBe('missing required argument "path"');
    expect((await w.call(t, 'ailang-read', { path: 7 })).refused).toBe(
      'argument "path" must be a string',
    );
    const ok = (await w.call(t, 'ailang-read', { path: 'hello.ail' })) as Record<string, any>;
    const record = await w.payload(ok.world.effects[0].record, t);
    expect([record.budgetBefore, record.budgetAfter]).toEqual([50, 49]);
  });

  it('scenario 14: handler and policy refusals run the effect and cost one unit', async () => {
    const ep = 'ep14';
    const wt = await w.episode(ep, { 'hello.ail': HELLO_AIL, '.git/config': '[core]\n' });
    const t = await w.session(ep, FULL_GRANTS);
    const cases: Array<[string, string]> = [
      ['.git/config', "write .git/config: .git/ is read-only to the lane's tools"],
      [
        '.CLAUDE/settings.json',
        'write .CLAUDE/settings.json: matches fs_deny_write ".claude/**" — read-only under this policy',
      ],
      [
        '.github/x',
        'write .github/x: matches fs_deny_write ".github/**" — read-only under this policy',
      ],
    ];
    let budget = 50;
    for (const [path, refusal] of cases) {
      const out = (await w.call(t, 'ailang-write', { path, content: 'x' })) as Record<string, any>;
      expect(out.ok).toBe(false);
      expect(out.refused).toBe(refusal);
      expect(out.world.effects[0].status).toBe('ok');
      const record = await w.payload(out.world.effects[0].record, t);
      expect([record.budgetBefore, record.budgetAfter]).toEqual([budget, budget - 1]);
      budget -= 1;
    }
    expect(readFileSync(join(wt, '.git/config'), 'utf8')).toBe('[core]\n');
    expect(existsSync(join(wt, '.CLAUDE'))).toBe(false);
    expect(existsSync(join(wt, '.github'))).toBe(false);
  });

  it('scenario 15: edit needs old_text exactly once', async () => {
    const many = await w.call(token, 'ailang-edit', {
      path: 'three.txt',
      old_text: 'x',
      new_text: 'y',
    });
    expect(many.refused).toBe(
      'edit three.txt: old_text occurs 3 times; include more context so it is unique',
    );
    const none = await w.call(token, 'ailang-edit', {
      path: 'three.txt',
      old_text: 'zz',
      new_text: 'y',
    });
    expect(none.refused).toBe(
      'edit three.txt: old_text not found — the file may have changed; read it again',
    );
    expect(readFileSync(join(worktree, 'three.txt'), 'utf8')).toBe('x x x\n');
    const ok = await w.call(token, 'ailang-edit', {
      path: 'three.txt',
      old_text: 'x x x',
      new_text: 'y',
    });
    expect(ok.ok).toBe(true);
    expect(readFileSync(join(worktree, 'three.txt'), 'utf8')).toBe('y\n');
  });

  it('scenario 16: budget exhaustion is denied, committed and persists across sessions', async () => {
    const ep = 'ep16';
    await w.episode(ep, { 'hello.ail': HELLO_AIL });
    const one = [{ effect: 'Workspace.Read', scope: 'worktree', budget: 1 }];
    const t = await w.session(ep, one);
    expect((await w.call(t, 'ailang-read', { path: 'hello.ail' })).ok).toBe(true);
    const before = await logLength();
    const denied = (await w.call(t, 'ailang-read', { path: 'hello.ail' })) as Record<string, any>;
    expect(denied).toEqual({
      world: {
        effects: [{ id: 'e1', status: 'denied', record: expect.stringMatching(/^sha256:/) }],
        plan: expect.stringMatching(/^sha256:/),
      },
    });
    expect(await logLength()).toBe(before + 1);
    const record = await w.payload(denied.world.effects[0].record, t);
    expect(record).toMatchObject({
      allowed: false,
      failed: false,
      denial: 'denied:budget',
      resultRef: '',
      budgetBefore: 0,
      budgetAfter: 0,
    });
    const fresh = await w.session(ep, one);
    expect(Object.keys(await w.call(fresh, 'ailang-read', { path: 'hello.ail' }))).toEqual([
      'world',
    ]);
  });

  it('every ref of a committed call resolves through /v1/objects and the output is the stateRoot', async () => {
    const out = (await w.call(token, 'ailang-write', {
      path: 'notes/todo.txt',
      content: 'first line\n',
    })) as Record<string, any>;
    expect(out.ok).toBe(true);
    const head = await w.get('/v1/head');
    const world = (await w.get(`/v1/worlds/${head.text}`)).json;
    expect(world.ref).toBe(worldRef(world));
    const entry = (await w.get(`/v1/log/${world.revision}`)).json;
    expect(world.logHead).toBe(entry.entryHash);
    const prev = (await w.get(`/v1/log/${world.revision - 1}`)).json;
    expect(entry.header.prevEntryHash).toBe(prev.entryHash);
    // The header's transitionFn (the tool's transition source) and interpreter are archived with
    // the registry head, so they resolve too.
    const source = await w.get(`/v1/objects/${entry.header.transitionFn}?payload=true`, token);
    const interpreter = await w.payload(entry.header.interpreter, token);
    expect([
      source.status,
      source.json.semanticId,
      Buffer.from(source.json.payload, 'base64').toString('utf8').includes('ailang-write'),
      Object.keys(interpreter).sort(),
    ]).toEqual([200, 'world/transition-source/v1', true, ['name', 'node', 'version']]);
    const rec = await w.payload(entry.transitionRef, token);
    expect(rec).toMatchObject({
      episodeId: 'ep1',
      skillId: 'ailang-write',
      plan: out.world.plan,
      effects: [out.world.effects[0].record],
    });
    expect(rec.invocationId).toMatch(/^mcp:ep1:[0-9a-f]{64}$/);
    expect(rec.output).toBe(world.stateRoot);
    const outputObject = await w.get(`/v1/objects/${world.stateRoot}?payload=true`, token);
    const bytes = Buffer.from(outputObject.json.payload, 'base64');
    expect(refOf(bytes)).toBe(world.stateRoot);
    expect(JSON.parse(bytes.toString('utf8'))).toEqual(out);
    expect(await w.payload(rec.input, token)).toEqual({
      path: 'notes/todo.txt',
      content: 'first line\n',
    });
    const plan = await w.payload(rec.plan, token);
    expect(plan).toEqual({
      plan: 'world/effect-plan/v1',
      effects: [
        {
          id: 'e1',
          effect: 'Workspace.Write',
          scope: 'worktree',
          cost: 1,
          payload: { op: 'write', path: 'notes/todo.txt', content: 'first line\n' },
        },
      ],
      finish: false,
      result: null,
    });
    const record = await w.payload(out.world.effects[0].record, token);
    const request = await w.get(`/v1/objects/${record.requestRef}?payload=true`, token);
    expect(request.json.semanticId).toBe('world/effect-request/v1');
    const result = await w.payload(record.resultRef, token);
    expect(result.ok).toBe(true);
    for (const ref of [
      entry.transitionRef,
      rec.input,
      rec.plan,
      rec.output,
      record.requestRef,
      record.resultRef,
      out.world.effects[0].record,
    ]) {
      const o = await w.get(`/v1/objects/${ref}?payload=true`, token);
      expect(refOf(Buffer.from(o.json.payload, 'base64'))).toBe(ref);
    }
  });
});
