/**
 * Embedded World on its own PostgreSQL server (DESIGN.md §5): `world start` runs as a real process
 * (the built CLI) on a fresh WORLD_HOME; these tests kill it, its server, or both, with SIGKILL,
 * and check what the next start finds: the cluster reused, the server never orphaned, the log
 * dense and hash-linked with an entry for every answered call, indeterminate intents reported
 * and never re-run.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { entryHash, type EntryHeader, type Ref } from '@world/canonical';
import { eventually, safeKill, startNode, type TestProcess } from '@world/testing';
import { CLI_ENTRY, requireBuiltCli, runCli } from '../support/cli.js';
import { tempHomeRoot } from '../support/system.js';

const E2E_TIMEOUT_MS = 240_000;

/** What `world start` itself logged (its JSON log lines of service "world"), message by message. */
function said(lines: readonly string[]): string[] {
  return lines.flatMap((l) => {
    try {
      const o = JSON.parse(l) as { service?: unknown; msg?: unknown };
      return o.service === 'world' && typeof o.msg === 'string' ? [o.msg] : [];
    } catch {
      return [];
    }
  });
}
/** A short deadline, so a call caught by a kill is settled within seconds after a restart. */
const DEADLINE_MS = 4_000;
/** MCP's one host error (world-spec §6: MCP only ever sees this text). */
/** A keyed MCP call whose effect may have run and whose claim lapsed: no records were written. */
const UNRECORDED_NONE = {
  code: -32603,
  message:
    'effects were requested but the invocation was not confirmed committed; effect records: (none recorded yet)',
};
/** A keyed MCP call whose claim holder is gone after its effect intent, before the lapse. */
const UNCERTAIN = 'invocation outcome is not confirmed; resend the same task id';

/** One `world start` process and what its banner said. */
interface Started {
  proc: TestProcess;
  url: string;
  token: string;
  operator: string;
}

async function start(home: string, extra: Record<string, string> = {}): Promise<Started> {
  const proc = startNode(CLI_ENTRY, ['start'], {
    WORLD_HOME: home,
    WORLD_BIND: '127.0.0.1:0',
    WORLD_CALL_DEADLINE_MS: String(DEADLINE_MS),
    WORLD_LOG_LEVEL: 'info',
    NATS_URL: '',
    DATABASE_URL: '',
    ...extra,
  });
  const line = await proc.waitForLine(
    /^ {2}MCP endpoint: {2}http:\/\/127\.0\.0\.1:\d+\/mcp$/,
    120_000,
  );
  return {
    proc,
    url: line
      .trim()
      .split(/\s+/)[2]!
      .replace(/\/mcp$/, ''),
    token: readFileSync(join(home, 'demo.session'), 'utf8').trim(),
    operator: readFileSync(join(home, 'operator.token'), 'utf8').trim(),
  };
}

/** tools/call of one tool with a task id; the JSON-RPC answer's result or error. */
async function call(
  w: Started,
  tool: string,
  args: Record<string, unknown>,
  taskId: string,
): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }> {
  const res = await fetch(`${w.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${w.token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: tool, arguments: args, _meta: { 'world/taskId': taskId } },
    }),
  });
  const text = await res.text();
  const data = text.split('\n').find((l) => l.startsWith('data: '));
  return JSON.parse(data === undefined ? text : data.slice(6));
}

async function getJson(w: Started, path: string): Promise<any> {
  const res = await fetch(`${w.url}${path}`, {
    headers: { authorization: `Bearer ${w.operator}` },
  });
  return res.json();
}

interface Entry {
  header: EntryHeader;
  entryHash: Ref;
  transitionRef: Ref;
}

/** The whole log, checked dense and hash-linked; returns the invocation id of each entry. */
async function checkedLog(w: Started): Promise<string[]> {
  const items: Entry[] = [];
  for (;;) {
    const page = (await getJson(w, `/v1/log?from=${items.length}&limit=500`)) as { items: Entry[] };
    if (page.items.length === 0) break;
    items.push(...page.items);
  }
  expect(items.map((e) => e.header.entryIndex)).toEqual([...Array(items.length).keys()]);
  items.forEach((e, i) => {
    expect(e.entryHash).toBe(entryHash(e.header, e.transitionRef));
    if (i > 0) expect(e.header.prevEntryHash).toBe(items[i - 1]!.entryHash);
  });
  const ids: string[] = [];
  for (const e of items.slice(1)) {
    const object = await getJson(w, `/v1/objects/${e.transitionRef}?payload=true`);
    const record = JSON.parse(Buffer.from(object.payload, 'base64').toString('utf8'));
    ids.push(record.invocationId);
  }
  return ids;
}

/** The pids of processes whose command line contains every one of `parts`. */
function pidsWith(...parts: string[]): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (parts.every((p) => cmd.includes(p))) pids.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

function runProgram(file: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(file, args, (err, stdout) => (err ? reject(err) : resolve(stdout))),
  );
}

const postmasterPid = (home: string) =>
  Number(readFileSync(join(home, 'pgdata', 'postmaster.pid'), 'utf8').split('\n')[0]);

const running = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

describe('world start on its own PostgreSQL server', () => {
  let root: string;
  const procs: TestProcess[] = [];
  beforeAll(async () => {
    requireBuiltCli();
    root = await tempHomeRoot('world-embedded-pg-');
  });
  afterAll(async () => {
    for (const p of procs) {
      p.kill('SIGTERM');
      await p.exited;
    }
    await rm(root, { recursive: true, force: true });
  });

  const track = (s: Started) => {
    procs.push(s.proc);
    return s;
  };

  it(
    'creates the cluster on first start (one line says so) and reuses it later; serves only a Unix socket inside WORLD_HOME with fsync and synchronous_commit on; SIGTERM stops the server',
    async () => {
      const home = join(root, 'first');
      const first = track(await start(home));
      expect(said(first.proc.lines)).toContain(
        `creating the PostgreSQL cluster at ${home}/pgdata (first start)`,
      );
      expect(first.proc.lines).toContain(
        `World is running (embedded: PostgreSQL at ${home}/pgdata, no NATS)`,
      );
      const client = new pg.Client({
        host: join(home, 'pgdata'),
        user: 'world',
        database: 'postgres',
      });
      await client.connect();
      const settings = await client.query(
        "SELECT name, setting FROM pg_settings WHERE name IN ('listen_addresses', 'unix_socket_directories', 'fsync', 'synchronous_commit', 'server_version_num') ORDER BY name",
      );
      await client.end();
      expect(
        settings.rows.map((r) => [
          r.name,
          r.name === 'server_version_num' ? r.setting.slice(0, 2) : r.setting,
        ]),
      ).toEqual([
        ['fsync', 'on'],
        ['listen_addresses', ''],
        ['server_version_num', '18'],
        ['synchronous_commit', 'on'],
        ['unix_socket_directories', join(home, 'pgdata')],
      ]);
      expect(statSync(join(home, 'postgres.log')).size).toBeGreaterThan(0);
      const server = postmasterPid(home);
      first.proc.kill('SIGTERM');
      expect(await first.proc.exited).toEqual({ code: 0, signal: null });
      expect([running(server), existsSync(join(home, 'pgdata', 'postmaster.pid'))]).toEqual([
        false,
        false,
      ]);

      const second = track(await start(home));
      expect(
        second.proc.lines.filter((l) => l.includes('creating the PostgreSQL cluster')),
      ).toEqual([]);
      second.proc.kill('SIGTERM');
      expect(await second.proc.exited).toEqual({ code: 0, signal: null });
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'the cluster belongs to an unprivileged user: world-postgres under root (a WORLD_HOME it cannot reach: exit 2 with the reason), else the user running World',
    async () => {
      const asRoot = process.getuid!() === 0;
      const owner = statSync(join(root, 'first', 'pgdata')).uid;
      if (!asRoot) {
        expect(owner).toBe(process.getuid!());
        return;
      }
      const id = await runProgram('id', ['-u', 'world-postgres']);
      expect(owner).toBe(Number(id.trim()));
      const closed = join(root, 'closed');
      await mkdir(closed, { mode: 0o700 });
      const run = await runCli(['start'], {
        WORLD_HOME: join(closed, 'home'),
        WORLD_BIND: '127.0.0.1:0',
      });
      expect(run).toEqual({
        code: 2,
        signal: null,
        stdout: '',
        stderr: `world: running as root, the PostgreSQL cluster is owned by user world-postgres, which cannot reach ${closed} (no search permission for others); choose a WORLD_HOME under directories others may traverse, or run World as another user\n`,
      });
      expect(existsSync(join(closed, 'home', 'pgdata'))).toBe(false);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'refuses a WORLD_HOME holding a PGlite database: exit 2, one line, nothing changed',
    async () => {
      const home = join(root, 'pglite');
      // The files PGlite 0.5 (PostgreSQL 18 in WASM) wrote under $WORLD_HOME/pgdata.
      const pgdata = join(home, 'pgdata');
      await mkdir(join(pgdata, 'base', '1'), { recursive: true });
      await mkdir(join(pgdata, 'global'), { recursive: true });
      await writeFile(join(pgdata, 'PG_VERSION'), '18\n');
      await writeFile(join(pgdata, 'postgresql.conf'), 'max_connections = 100\n');
      await writeFile(join(pgdata, 'base', '1', '1259'), Buffer.alloc(8192, 7));
      const before = readdirSync(pgdata, { recursive: true }).sort();
      const run = await runCli(['start'], { WORLD_HOME: home, WORLD_BIND: '127.0.0.1:0' });
      expect(run).toEqual({
        code: 2,
        signal: null,
        stdout: '',
        stderr: `world: ${pgdata} holds a PGlite database of an earlier World, which this World cannot open (it runs PostgreSQL 18); move it away or set another WORLD_HOME (nothing was changed)\n`,
      });
      expect(readdirSync(pgdata, { recursive: true }).sort()).toEqual(before);
      expect(readFileSync(join(pgdata, 'base', '1', '1259'))).toEqual(Buffer.alloc(8192, 7));
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'SIGKILL of world start during a stream of writes: the watchdog stops the server within seconds; the next start finds the log dense and linked, an entry for every answered call, and a leftover server stopped',
    async () => {
      const home = join(root, 'crash');
      const w = track(await start(home));
      const server = postmasterPid(home);
      const answered: string[] = [];
      const sent: string[] = [];
      let stop = false;
      const writer = async (n: number) => {
        for (let i = 0; !stop; i++) {
          const task = `w${n}-${i}`;
          sent.push(task);
          const answer = await call(
            w,
            'ailang-write',
            { path: `${task}.txt`, content: task },
            task,
          ).catch(() => undefined);
          if (answer?.result !== undefined) answered.push(task);
        }
      };
      const writers = [0, 1, 2, 3].map(writer);
      await eventually(
        () => (answered.length >= 20 ? true : undefined),
        60_000,
        '20 answered writes',
      );
      w.proc.kill('SIGKILL');
      stop = true;
      await Promise.all(writers);
      expect(await w.proc.exited).toEqual({ code: null, signal: 'SIGKILL' });
      await eventually(() => (running(server) ? undefined : true), 10_000, 'the server to stop');

      const again = track(await start(home));
      const ids = await checkedLog(again);
      const committed = new Set(
        ids.filter((id) => id.startsWith('mcp:demo:')).map((id) => id.slice(9)),
      );
      expect(answered.filter((t) => !committed.has(t))).toEqual([]);
      // Every committed write is in the worktree; nothing committed that was never sent.
      expect([...committed].filter((t) => !sent.includes(t))).toEqual([]);
      for (const t of committed) {
        expect(readFileSync(join(home, 'worktrees', 'demo', `${t}.txt`), 'utf8')).toBe(t);
      }

      // A leftover server: World and its watchdog both SIGKILLed, the server left running.
      const leftover = postmasterPid(home);
      const dogs = pidsWith('watchdog.js', join(home, 'pgdata'));
      expect(dogs.length).toBe(1);
      safeKill(dogs[0]!, 'SIGKILL');
      again.proc.kill('SIGKILL');
      await again.proc.exited;
      expect(running(leftover)).toBe(true);
      const third = track(await start(home));
      expect(said(third.proc.lines)).toContain(
        `stopping a leftover PostgreSQL server (pid ${leftover}) of this WORLD_HOME`,
      );
      expect(running(leftover)).toBe(false);
      expect(await checkedLog(third)).toEqual(ids);
      third.proc.kill('SIGTERM');
      expect(await third.proc.exited).toEqual({ code: 0, signal: null });
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'an intent caught by a SIGKILL is reported as indeterminate after the restart and never re-run',
    async () => {
      const home = join(root, 'intent');
      const armed = track(await start(home, { WORLD_CRASHPOINT: 'after-handler' }));
      // The process dies inside the call: the connection ends without an answer.
      const first = await call(
        armed,
        'ailang-write',
        { path: 'once.txt', content: 'one' },
        'once',
      ).then(
        () => 'answered',
        (err: Error) => err.name,
      );
      expect(first).toBe('TypeError');
      expect(await armed.proc.exited).toEqual({ code: null, signal: 'SIGKILL' });

      const w = track(await start(home));
      const report = await w.proc.waitForLine(/indeterminate effect intent/, 10_000);
      expect(JSON.parse(report)).toMatchObject({
        invocationId: 'mcp:demo:once',
        effect: 'Workspace.Write',
        msg: 'indeterminate effect intent: it may have run; it is not re-run',
      });
      // The handler ran once before the kill; a resend runs nothing: "not confirmed" while the
      // dead process's claim is live, then "effects were requested …" (no record was written).
      await writeFile(join(home, 'worktrees', 'demo', 'once.txt'), 'changed after the crash');
      let resend = await call(w, 'ailang-write', { path: 'once.txt', content: 'one' }, 'once');
      const until = Date.now() + 4 * DEADLINE_MS;
      while (resend.error?.message === UNCERTAIN && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 250));
        resend = await call(w, 'ailang-write', { path: 'once.txt', content: 'one' }, 'once');
      }
      expect(resend.error).toEqual(UNRECORDED_NONE);
      expect(readFileSync(join(home, 'worktrees', 'demo', 'once.txt'), 'utf8')).toBe(
        'changed after the crash',
      );
      expect((await checkedLog(w)).filter((id) => id === 'mcp:demo:once')).toEqual([]);
      w.proc.kill('SIGTERM');
      expect(await w.proc.exited).toEqual({ code: 0, signal: null });
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'SIGKILL of the PostgreSQL server alone: World reports it, /readyz says database failed, World restarts it and serves again with nothing lost',
    async () => {
      const home = join(root, 'server-kill');
      const w = track(await start(home));
      for (const task of ['a', 'b', 'c']) {
        expect(
          (await call(w, 'ailang-write', { path: `${task}.txt`, content: task }, task)).result,
        ).toBeDefined();
      }
      const before = await checkedLog(w);
      const server = postmasterPid(home);
      safeKill(server, 'SIGKILL');
      await w.proc.waitForLine(
        /"msg":"the PostgreSQL server \(pid \d+\) exited \(SIGKILL\); restarting it in 250 ms/,
        10_000,
      );
      // Before the restarted server answers (crash recovery comes first), /readyz reports it.
      const down = await fetch(`${w.url}/readyz`);
      expect([down.status, ((await down.json()) as { checks: unknown }).checks]).toEqual([
        503,
        { database: 'failed' },
      ]);
      expect(said(w.proc.lines)).toContain(
        `the PostgreSQL server (pid ${server}) exited (SIGKILL); restarting it in 250 ms (log: ${home}/postgres.log)`,
      );
      await w.proc.waitForLine(
        /"msg":"the PostgreSQL server is serving again \(pid \d+\)"/,
        60_000,
      );
      await eventually(
        async () => ((await fetch(`${w.url}/readyz`)).status === 200 ? true : undefined),
        30_000,
        '/readyz 200',
      );
      expect(postmasterPid(home)).not.toBe(server);
      const after = await call(w, 'ailang-write', { path: 'd.txt', content: 'd' }, 'd');
      expect(after.result).toBeDefined();
      expect(await checkedLog(w)).toEqual([...before, 'mcp:demo:d']);
      w.proc.kill('SIGTERM');
      expect(await w.proc.exited).toEqual({ code: 0, signal: null });
    },
    E2E_TIMEOUT_MS,
  );
  it(
    'SIGKILL of the PostgreSQL server right after a call answered: its lease release, lost with the server, runs again once it is back, so a write, a read and the log all answer at once after the restart',
    async () => {
      const home = join(root, 'release-kill');
      const w = track(await start(home));
      expect(
        (await call(w, 'ailang-write', { path: 'a.txt', content: 'a' }, 'a')).result,
      ).toBeDefined();
      const server = postmasterPid(home);
      // The kill follows the answer within a WAL writer round: the call's lease release
      // (committed asynchronously) is lost with the server, or never reached it.
      const b = await call(w, 'ailang-write', { path: 'b.txt', content: 'b' }, 'b');
      safeKill(server, 'SIGKILL');
      expect(b.result).toBeDefined();
      await w.proc.waitForLine(
        /"msg":"the PostgreSQL server is serving again \(pid \d+\)"/,
        60_000,
      );
      await eventually(
        async () => ((await fetch(`${w.url}/readyz`)).status === 200 ? true : undefined),
        30_000,
        '/readyz 200',
      );
      // Every service's database path at once: the broker and the ledger (a write, a read), the
      // gateway's log read and its readiness check.
      const [write, read, log, ready] = await Promise.all([
        call(w, 'ailang-write', { path: 'c.txt', content: 'c' }, 'c'),
        call(w, 'ailang-read', { path: 'a.txt' }, 'r'),
        getJson(w, '/v1/log?from=0&limit=500'),
        fetch(`${w.url}/readyz`).then(async (r) => ({
          status: r.status,
          body: (await r.json()) as { status: string; checks: unknown },
        })),
      ]);
      const hash = expect.stringMatching(/^sha256:[0-9a-f]{64}$/);
      const answer = (extra: Record<string, unknown>) => ({
        ...extra,
        ok: true,
        policy_digest: expect.stringMatching(/^[0-9a-f]{64}$/),
        tool: hash,
        world: { effects: [{ id: 'e1', status: 'ok', record: hash }], plan: hash },
      });
      expect([
        write.result?.structuredContent ?? write.error,
        read.result?.structuredContent ?? read.error,
      ]).toEqual([answer({}), answer({ content: 'a' })]);
      expect(readFileSync(join(home, 'worktrees', 'demo', 'c.txt'), 'utf8')).toBe('c');
      const indexes = (log as { items: Entry[] }).items.map((e) => e.header.entryIndex);
      expect(indexes).toEqual([...Array(indexes.length).keys()]);
      expect(indexes.length).toBeGreaterThanOrEqual(3);
      expect([ready.status, ready.body.status, ready.body.checks]).toEqual([
        200,
        'ready',
        { database: 'ok' },
      ]);
      // Both committed once, one after the other (each took the lease in turn).
      const at = (r: typeof write) => r.result?._meta as Record<string, unknown>;
      const byIndex = { [at(write)['world/entryIndex'] as number]: 'mcp:demo:c' };
      byIndex[at(read)['world/entryIndex'] as number] = 'mcp:demo:r';
      expect(Object.keys(byIndex).sort()).toEqual(['3', '4']);
      expect(await checkedLog(w)).toEqual(['mcp:demo:a', 'mcp:demo:b', byIndex[3], byIndex[4]]);
      w.proc.kill('SIGTERM');
      expect(await w.proc.exited).toEqual({ code: 0, signal: null });
    },
    E2E_TIMEOUT_MS,
  );
});
