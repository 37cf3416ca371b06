/**
 * Broker recovery names only orphans (world-internals §5.5), on `world up`:
 * - a broker replica started while another runs a call (held just before its outcome write by
 *   `LOCK TABLE broker.effect_outcomes IN EXCLUSIVE MODE`) does not report that live intent, and
 *   the call commits;
 * - a broker SIGKILLed at that point leaves an orphan, which the surviving replica's periodic
 *   sweep reports (`broker.recovery`) without any broker restarting.
 */
import { readdir, readFile, readlink } from 'node:fs/promises';
import type { ParsedRequestOf } from '@world/contracts';
import { eventually, startNode, type TestProcess } from '@world/testing';
import { serviceEntry } from '../../src/system/up.js';
import { startUpWorld, type UpWorld } from '../support/up-world.js';

/** The default deadline: the held call outlasts a broker replica starting on a busy machine. */
const DEADLINE_MS = 20_000;
const WRITE = [{ effect: 'Workspace.Write', scope: 'worktree', budget: 10 }];

/** The pid among `pids` owning the TCP socket bound to local `port` (from /proc). */
async function pidOfPort(port: number, pids: number[]): Promise<number | undefined> {
  const inodes = new Set<string>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(file, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length > 9 && parseInt(cols[1]!.split(':')[1]!, 16) === port) inodes.add(cols[9]!);
    }
  }
  for (const pid of pids) {
    for (const fd of await readdir(`/proc/${pid}/fd`).catch(() => [] as string[])) {
      const link = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
      const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
      if (inode !== undefined && inodes.has(inode)) return pid;
    }
  }
  return undefined;
}

describe('broker recovery on world up (gateway=1, planner=1, broker=1, ledger=1, then a second broker)', () => {
  let w: UpWorld;
  let late: TestProcess | undefined;

  beforeAll(async () => {
    w = await startUpWorld('recover', 'gateway=1,planner=1,broker=1,ledger=1', DEADLINE_MS, {
      WORLD_ORPHAN_SWEEP_MS: '300',
    });
  }, 120_000);

  afterAll(async () => {
    await w?.releaseLocks();
    late?.kill('SIGTERM');
    await late?.exited;
    await w?.close();
  }, 60_000);

  /** Holds `LOCK TABLE broker.effect_outcomes IN EXCLUSIVE MODE`: a broker's outcome write waits. */
  const lockOutcomes = () => w.holdLock('LOCK TABLE broker.effect_outcomes IN EXCLUSIVE MODE');
  /** client ports of the backends waiting to write an outcome */
  const outcomeWaiters = async () =>
    (
      await w.q<{ port: number }>(
        `SELECT client_port AS port FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock'
            AND query LIKE '%effect_outcomes%'`,
      )
    ).map((r) => r.port);
  const waitForOutcomeWaiter = () =>
    eventually(async () => (await outcomeWaiters())[0], 10_000, 'a broker waiting at its outcome');

  it('does not report a live call at a replica start, and the sweep reports the orphan a killed replica left', async () => {
    const { token } = await w.episode('ep-live', { 'count.txt': 'a' }, WRITE);
    const edit = (from: string, to: string) => ({
      path: 'count.txt',
      old_text: from,
      new_text: to,
    });

    // A call held just before its outcome write while a second broker replica starts.
    const unlockFirst = await lockOutcomes();
    const first = w.tasksSend(token, 't1', 'ailang-edit', edit('a', 'ab'));
    await waitForOutcomeWaiter();
    late = startNode(serviceEntry('broker'), [], {
      ...w.env,
      WORLD_REPLICA: 'broker-late',
      WORLD_HEALTH_PORT: '0',
    });
    const started = await late.waitForLine(/"msg":"broker started"/, 30_000);
    expect(JSON.parse(started)).toMatchObject({ replica: 'broker-late', indeterminate: 0 });
    await late.waitForLine(/"msg":"ready"/, 30_000);
    await unlockFirst();
    expect((await first).result?.status).toEqual({ state: 'completed' });
    expect(late.lines.filter((l) => l.includes('indeterminate effect intent'))).toEqual([]);

    // The replica running the next call dies at the same point; the other one reports it.
    const reports: Array<ParsedRequestOf<'broker.recovery'>> = [];
    const off = w.rpc.subscribe('broker.recovery', (event) => reports.push(event));
    await w.rpc.ping();
    const unlockSecond = await lockOutcomes();
    const second = w.tasksSend(token, 't2', 'ailang-edit', edit('ab', 'abc'));
    const port = await waitForOutcomeWaiter();
    const upBroker = w.up.processes.find((p) => p.service === 'broker')!;
    const brokers = { [upBroker.child.pid!]: 'broker-1', [late.pid]: 'broker-late' };
    const victimPid = await pidOfPort(port, [upBroker.child.pid!, late.pid]);
    expect(victimPid).toBeDefined();
    process.kill(victimPid!, 'SIGKILL');
    const survivor = victimPid === late.pid ? 'broker-1' : 'broker-late';
    expect(brokers[victimPid!]).not.toBe(survivor);
    await eventually(
      async () => ((await outcomeWaiters()).length === 0 ? true : undefined),
      10_000,
      'the dead broker’s statement cancelled',
    );
    await unlockSecond();
    expect(await second).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: -32603,
        message:
          'effects were requested but the invocation was not confirmed committed; effect records: (none recorded yet)',
      },
    });
    await eventually(() => (reports.length > 0 ? true : undefined), 15_000, 'the sweep report');
    off();
    expect(reports).toEqual([
      {
        replica: survivor,
        items: [
          {
            invocationId: 'a2a:ep-live:t2',
            episodeId: 'ep-live',
            ordinal: 1,
            effect: 'Workspace.Write',
            scope: 'worktree',
          },
        ],
      },
    ]);
  }, 90_000);
});
