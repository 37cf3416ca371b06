import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MESSAGES, credentialIdOf } from '@world/contracts';
import { ConfigError, InProcessBus } from '@world/runtime';
import { OPERATOR_MESSAGES } from '../../src/auth/authenticator.js';
import { loadOperatorCredential, startGateway } from '../../src/index.js';
import { hex, startHarness, tool, type Harness } from './fake-world.js';

const SESSION = hex('a');
const MODE_BITS = 0o777;

describe('the operator credential (DESIGN.md §5, world-spec §2.2)', () => {
  let home: string;

  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'world-operator-'));
  });

  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('creates $WORLD_HOME/operator.token on first start: 64 hex, mode 0600, parent 0700', async () => {
    const worldHome = join(home, 'nested', '.world');
    const gateway = await startGateway({
      transport: { kind: 'inproc', bus: new InProcessBus() },
      bind: '127.0.0.1:0',
      worldHome,
    });
    try {
      const file = join(worldHome, 'operator.token');
      expect(gateway.operatorTokenFile).toBe(file);
      const text = await readFile(file, 'utf8');
      expect(text).toMatch(/^[0-9a-f]{64}\n$/);
      expect((await stat(file)).mode & MODE_BITS).toBe(0o600);
      expect((await stat(worldHome)).mode & MODE_BITS).toBe(0o700);
      const res = await fetch(`${gateway.url}/v1/operator/sessions`, {
        headers: { authorization: `Bearer ${text.trim()}` },
      });
      // The credential is accepted: the refusal is the missing broker, not the token.
      expect(res.status).toBe(503);
    } finally {
      await gateway.close();
    }
  });

  it('reads the existing file on the next start instead of replacing it', async () => {
    const first = await loadOperatorCredential({ worldHome: home });
    const text = await readFile(join(home, 'operator.token'), 'utf8');
    const second = await loadOperatorCredential({ worldHome: home });
    expect(await readFile(join(home, 'operator.token'), 'utf8')).toBe(text);
    expect([
      first.credential.matches(text.trim()),
      second.credential.matches(text.trim()),
      second.credential.matches(hex('1')),
    ]).toEqual([true, true, false]);
  });

  it('prefers WORLD_OPERATOR_TOKEN, then WORLD_OPERATOR_TOKEN_FILE', async () => {
    const file = join(home, 'given.token');
    await writeFile(file, `${hex('3')}\n`);
    const fromToken = await loadOperatorCredential({ token: hex('2'), file, worldHome: home });
    const fromFile = await loadOperatorCredential({ file, worldHome: home });
    expect([
      fromToken.credential.matches(hex('2')),
      fromToken.file,
      fromFile.credential.matches(hex('3')),
      fromFile.file,
    ]).toEqual([true, undefined, true, file]);
  });

  it('refuses a token file that does not hold 64 hex', async () => {
    const file = join(home, 'bad.token');
    await writeFile(file, 'hunter2\n');
    await expect(loadOperatorCredential({ file, worldHome: home })).rejects.toEqual(
      new ConfigError(`gateway: operator token file ${file} must hold 64 lowercase hex`),
    );
  });
});

describe('the operator routes against a fake broker', () => {
  let h: Harness;
  let base: string;
  let operator: Record<string, string>;

  beforeAll(async () => {
    h = await startHarness();
    base = `${h.gateway.url}/v1/operator`;
    operator = { authorization: `Bearer ${h.operatorToken}`, 'content-type': 'application/json' };
    h.world.registry = [tool('ailang-read', 'Workspace.Read')];
    h.world.addSession(SESSION, [['Workspace.Read', 5]]);
  });

  afterAll(async () => {
    await h.close();
  });

  beforeEach(() => {
    h.world.calls.length = 0;
  });

  const send = (method: string, path: string, body?: unknown, headers = operator) =>
    fetch(`${base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const answer = async (res: Response) => [res.status, await res.json()];

  const refusals: Array<[string, Record<string, string>, number, string, string]> = [
    ['no credential', {}, 401, 'SessionAbsent', OPERATOR_MESSAGES.absent],
    [
      'a malformed header',
      { authorization: 'Bearer nope' },
      400,
      'InvalidSession',
      MESSAGES.sessionMalformed,
    ],
    [
      'a session credential',
      { authorization: `Bearer ${SESSION}` },
      401,
      'SessionUnknown',
      OPERATOR_MESSAGES.unknown,
    ],
  ];
  it.each(refusals)('refuses %s', async (_row, headers, status, cls, message) => {
    expect(await answer(await send('GET', '/sessions', undefined, headers))).toEqual([
      status,
      { error: { class: cls, message } },
    ]);
    expect(h.world.calls).toEqual([]);
  });

  describe('POST /v1/operator/episodes', () => {
    it.each([
      ['an empty worktree', { episodeId: 'ep2' }, { kind: 'empty' }],
      [
        'a copy of a directory',
        { episodeId: 'ep2', from: '/src/project' },
        { kind: 'copy', dir: '/src/project' },
      ],
      [
        'a git worktree at a ref',
        { episodeId: 'ep2', git: '/src/repo', ref: 'main' },
        { kind: 'git', repo: '/src/repo', ref: 'main' },
      ],
    ])('creates %s through broker.episode.create', async (_row, body, source) => {
      expect(await answer(await send('POST', '/episodes', body))).toEqual([
        200,
        { episodeId: 'ep2', worktree: '/work/episodes/ep2', created: true },
      ]);
      expect(h.world.callsOf('broker.episode.create')).toEqual([{ episodeId: 'ep2', source }]);
    });

    it.each([
      [
        'both sources',
        { episodeId: 'ep2', from: '/a', git: '/b' },
        'give at most one of "from" and "git"',
      ],
      ['a ref without git', { episodeId: 'ep2', ref: 'main' }, '"ref" needs "git"'],
      [
        'a bad episode id',
        { episodeId: 'Ep 2' },
        'episodeId: episode id must match ^[a-z0-9][a-z0-9-]{0,63}$',
      ],
      ['an unknown field', { episodeId: 'ep2', worktree: '/x' }, 'unknown field "worktree"'],
    ])('refuses %s with 400 and creates nothing', async (_row, body, message) => {
      expect(await answer(await send('POST', '/episodes', body))).toEqual([
        400,
        { error: { class: 'BadRequest', message } },
      ]);
      expect(h.world.callsOf('broker.episode.create')).toEqual([]);
    });
  });

  describe('sessions', () => {
    it('mints with parsed grants and the default TTL, answering the token once', async () => {
      const body = {
        episodeId: 'ep1',
        grants: ['Workspace.Read=worktree:50', 'Ailang.Run=worktree:5'],
      };
      const token = hex('c');
      expect(await answer(await send('POST', '/sessions', body))).toEqual([
        200,
        {
          token,
          credentialId: credentialIdOf(token),
          episodeId: 'ep1',
          grants: [
            { effect: 'Workspace.Read', scope: 'worktree', budget: 50, expiresAt: 4_600_000 },
            { effect: 'Ailang.Run', scope: 'worktree', budget: 5, expiresAt: 4_600_000 },
          ],
          expiresAt: 4_600_000,
        },
      ]);
      expect(h.world.callsOf('broker.session.mint')).toEqual([
        {
          episodeId: 'ep1',
          grants: [
            { effect: 'Workspace.Read', scope: 'worktree', budget: 50 },
            { effect: 'Ailang.Run', scope: 'worktree', budget: 5 },
          ],
          ttlSeconds: 3600,
        },
      ]);
    });

    it('refuses a bad grant by name and mints nothing', async () => {
      const body = { episodeId: 'ep1', grants: ['Workspace.Read=worktree:50', 'Workspace.Write'] };
      expect(await answer(await send('POST', '/sessions', body))).toEqual([
        400,
        {
          error: {
            class: 'BadRequest',
            message: 'grant "Workspace.Write" has no effect name; expected EFFECT=SCOPE:BUDGET',
          },
        },
      ]);
      expect(h.world.callsOf('broker.session.mint')).toEqual([]);
    });

    it('refuses an empty grant list', async () => {
      expect(
        await answer(await send('POST', '/sessions', { episodeId: 'ep1', grants: [] })),
      ).toEqual([
        400,
        { error: { class: 'BadRequest', message: 'grants: must list at least one grant' } },
      ]);
    });

    it('lists the sessions of one episode', async () => {
      const listed = (await (await send('GET', '/sessions?episode=ep1')).json()) as {
        items: Array<{ credentialId: string; live: boolean }>;
      };
      expect(listed.items.map((s) => [s.credentialId, s.live])).toEqual([
        [credentialIdOf(SESSION), true],
      ]);
      expect(h.world.callsOf('broker.session.list')).toEqual([{ episodeId: 'ep1' }]);
    });

    it('refuses a malformed episode filter', async () => {
      expect(await answer(await send('GET', '/sessions?episode=EP'))).toEqual([
        400,
        { error: { class: 'BadRequest', message: 'episode must match ^[a-z0-9][a-z0-9-]{0,63}$' } },
      ]);
    });

    it('refuses a malformed credential id on revoke', async () => {
      expect(await answer(await send('DELETE', '/sessions/xyz'))).toEqual([
        400,
        { error: { class: 'BadRequest', message: 'credential id must be 64 lowercase hex' } },
      ]);
      expect(h.world.callsOf('broker.session.revoke')).toEqual([]);
    });

    it('revokes, and this replica stops honouring the cached session at once', async () => {
      const mcp = (id: number) =>
        fetch(`${h.gateway.url}/mcp`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${SESSION}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }),
        });
      expect((await mcp(1)).status).toBe(200);
      expect(await answer(await send('DELETE', `/sessions/${credentialIdOf(SESSION)}`))).toEqual([
        200,
        { revoked: true },
      ]);
      const after = await mcp(2);
      expect([after.status, await after.text()]).toEqual([401, MESSAGES.sessionUnknown]);
    });
  });
});
