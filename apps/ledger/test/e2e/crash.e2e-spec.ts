import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { TransportTimeoutError, READ_ALL } from '@world/contracts';
import { connectRpc, type RpcClient } from '@world/runtime';
import {
  createTestDatabase,
  startNode,
  testNatsUrl,
  uniquePrefix,
  type TestDatabase,
  type TestProcess,
} from '@world/testing';
import { genesis } from '../../src/genesis/genesis.js';
import { toolCall } from '../support.js';

/** The built process entry; `pnpm test` at the root builds first (turbo test dependsOn build). */
const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
/** How long the client waits for the reply a killed ledger never sends. */
const LOST_REPLY_TIMEOUT_MS = 2_000;
/** Requests to a live ledger. */
const RPC_TIMEOUT_MS = 10_000;
const READY = /"msg":"ready"/;

describe('ledger process killed inside the commit transaction (DESIGN.md §6)', () => {
  let tdb: TestDatabase;
  let prefix: string;
  let client: RpcClient;
  const running: TestProcess[] = [];

  const start = (extra: NodeJS.ProcessEnv) => {
    const child = startNode(MAIN, [], {
      DATABASE_URL: tdb.url,
      NATS_URL: testNatsUrl(),
      WORLD_SUBJECT_PREFIX: prefix,
      WORLD_LOG_LEVEL: 'info',
      WORLD_CRASHPOINT: undefined,
      ...extra,
    });
    running.push(child);
    return child;
  };

  beforeAll(async () => {
    if (!existsSync(MAIN)) {
      throw new Error(
        `${MAIN} is missing: build first (pnpm exec turbo run build --filter=@world/ledger...)`,
      );
    }
    tdb = await createTestDatabase('ledger_crash');
    prefix = uniquePrefix('ledger-crash');
    client = await connectRpc({ kind: 'nats', url: testNatsUrl(), prefix }, 'ledger-crash-client');
  });

  afterAll(async () => {
    await client?.close();
    for (const p of running) {
      if (p.child.exitCode === null && p.child.signalCode === null) {
        p.kill('SIGKILL');
        await p.exited;
      }
    }
    await tdb?.drop();
  });

  it('dies with SIGKILL on the first commit; restarted, its log, head and receipt are untouched and SIGTERM stops it cleanly', async () => {
    const G = genesis();
    const crashing = start({ WORLD_CRASHPOINT: 'inside-commit' });
    await crashing.waitForLine(READY);
    await expect(client.request('ledger.head', {}, { timeoutMs: RPC_TIMEOUT_MS })).resolves.toEqual(
      {
        worldRef: G.world.ref,
        world: G.world,
        entryIndex: 0,
      },
    );

    // With the crash point armed, this lone commit takes its own transaction (chooseStrategy),
    // where the point fires after the journal check, before COMMIT.
    const call = toolCall('a2a:ep-crash:task-1', { crash: 1 });
    const lost = await client
      .request('ledger.commit', call.request, { timeoutMs: LOST_REPLY_TIMEOUT_MS })
      .then(
        () => null,
        (err: unknown) => err,
      );
    expect(lost).toBeInstanceOf(TransportTimeoutError);
    await expect(crashing.exited).resolves.toEqual({ code: null, signal: 'SIGKILL' });

    const restarted = start({});
    await restarted.waitForLine(READY);
    const opts = { timeoutMs: RPC_TIMEOUT_MS };
    await expect(client.request('ledger.head', {}, opts)).resolves.toEqual({
      worldRef: G.world.ref,
      world: G.world,
      entryIndex: 0,
    });
    await expect(client.request('ledger.log.range', { from: 0, limit: 10 }, opts)).resolves.toEqual(
      {
        items: [G.entry],
      },
    );
    await expect(
      client.request(
        'ledger.receipt.get',
        { scope: READ_ALL, invocationId: 'a2a:ep-crash:task-1' },
        opts,
      ),
    ).resolves.toEqual({
      invocationId: 'a2a:ep-crash:task-1',
      state: 'not-started',
    });
    await expect(
      client.request(
        'ledger.object.get',
        { scope: READ_ALL, ref: call.record.hash, payload: false },
        opts,
      ),
    ).rejects.toMatchObject({ errorClass: 'NotFound', message: 'object not found' });

    // Nothing landed, so the same commit is simply committed now.
    await expect(client.request('ledger.commit', call.request, opts)).resolves.toMatchObject({
      entryIndex: 1,
      prevEntryHash: G.entry.entryHash,
      replayed: false,
    });

    // SIGTERM drains and exits 0 (closeOnSignal).
    restarted.kill('SIGTERM');
    await expect(restarted.exited).resolves.toEqual({ code: 0, signal: null });
  });

  it('dies with SIGKILL inside the commit transaction of a commit the one statement cannot take; restarted, nothing of it was written', async () => {
    const G = genesis();
    const opts = { timeoutMs: RPC_TIMEOUT_MS };
    const crashing = start({ WORLD_CRASHPOINT: 'inside-commit' });
    await crashing.waitForLine(READY);
    const before = await client.request('ledger.head', {}, opts);
    // Its stateRoot is stored (the genesis object) but not carried: only the transaction, which
    // checks stored refs under the head lock, may commit it.
    const call = toolCall('a2a:ep-crash:task-2', { crash: 2 });
    const request = {
      ...call.request,
      stateRoot: G.object.hash,
      objects: [call.request.objects[0]!, call.request.objects[2]!],
    };
    const lost = await client
      .request('ledger.commit', request, { timeoutMs: LOST_REPLY_TIMEOUT_MS })
      .then(
        () => null,
        (err: unknown) => err,
      );
    expect(lost).toBeInstanceOf(TransportTimeoutError);
    await expect(crashing.exited).resolves.toEqual({ code: null, signal: 'SIGKILL' });

    const restarted = start({});
    await restarted.waitForLine(READY);
    await expect(client.request('ledger.head', {}, opts)).resolves.toEqual(before);
    await expect(
      client.request(
        'ledger.receipt.get',
        { scope: READ_ALL, invocationId: 'a2a:ep-crash:task-2' },
        opts,
      ),
    ).resolves.toEqual({ invocationId: 'a2a:ep-crash:task-2', state: 'not-started' });
    await expect(
      client.request(
        'ledger.object.get',
        { scope: READ_ALL, ref: call.record.hash, payload: false },
        opts,
      ),
    ).rejects.toMatchObject({ errorClass: 'NotFound', message: 'object not found' });
    await expect(client.request('ledger.commit', request, opts)).resolves.toMatchObject({
      entryIndex: before.entryIndex! + 1,
      replayed: false,
    });
    restarted.kill('SIGTERM');
    await expect(restarted.exited).resolves.toEqual({ code: 0, signal: null });
  });

  it('refuses to start without DATABASE_URL, exiting 2 with one line naming it', async () => {
    const child = start({ DATABASE_URL: undefined });
    await expect(child.exited).resolves.toEqual({ code: 2, signal: null });
    expect(child.lines).toEqual([
      'ledger: invalid configuration: DATABASE_URL: Invalid input: expected string, received undefined',
    ]);
  });
});
