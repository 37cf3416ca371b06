/**
 * The log as a transparency log (RFC 9162, C2SP checkpoints), checked from outside: proofs and
 * checkpoints served by a real ledger are verified by the independent verifier of @world/testing (RFC 9162 and
 * C2SP written anew, none of the ledger's or @world/tlog's code).
 */
import { entryBytes } from '@world/canonical';
import { connectRpc, InProcessBus, type RpcClient, type TransportConfig } from '@world/runtime';
import {
  checkConsistency,
  checkInclusion,
  mth,
  mthLeaf,
  openCheckpointNote,
  uniquePrefix,
} from '@world/testing';
import { startLedger, type RunningLedger } from '../../src/boot.js';
import { MODES, RPC_TIMEOUT_MS, toolCall, type ModeSetup } from '../support.js';

const opts = { timeoutMs: RPC_TIMEOUT_MS };
const b = (text: string) => Buffer.from(text, 'base64');

/** A transport no other replica of the suite listens on (a second, separate ledger). */
function otherTransport(mode: ModeSetup): TransportConfig {
  return mode.transport.kind === 'nats'
    ? { ...mode.transport, prefix: uniquePrefix('tlog-other') }
    : { kind: 'inproc', bus: new InProcessBus() };
}

/** Every entry's leaf hash, recomputed from the headers GET /v1/log serves. */
async function leavesOf(client: RpcClient): Promise<Buffer[]> {
  const leaves: Buffer[] = [];
  for (;;) {
    const { items } = await client.request(
      'ledger.log.range',
      { from: leaves.length, limit: 500 },
      opts,
    );
    if (items.length === 0) return leaves;
    for (const e of items) leaves.push(mthLeaf(entryBytes(e.header, e.transitionRef)));
  }
}

describe.each(MODES)('transparency log over %s', (_mode, setupMode) => {
  let mode: ModeSetup;
  let ledger: RunningLedger;
  let client: RpcClient;

  beforeAll(async () => {
    mode = await setupMode();
    ledger = await startLedger({
      transport: mode.transport,
      database: mode.database,
      replica: 'ledger-tlog-test',
      checkpointIntervalMs: 0,
    });
    client = await connectRpc(mode.transport, 'ledger-tlog-test-client');
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await ledger?.close();
    await mode?.teardown();
  });

  it('serves inclusion and consistency proofs for every size 1…300 that an independent verifier accepts, and signed checkpoints of the recomputed roots', async () => {
    const { vkey, origin } = await client.request('ledger.tlog.key', {}, opts);
    expect(vkey.startsWith(`${origin}+`)).toBe(true);
    expect(origin).toMatch(/^world\.local\/log-[0-9a-f]{16}$/);
    const seen: Array<{ size: number; root: Buffer }> = [];
    for (let i = 1; i < 300; i++) {
      await client.request('ledger.commit', toolCall(`mcp:ep-tlog:t${i}`, { i }).request, opts);
      if (i % 50 === 0 || i === 1) {
        const cp = await client.request('ledger.tlog.checkpoint', {}, opts);
        const opened = openCheckpointNote(cp.note, vkey);
        expect({ origin: opened.origin, size: opened.size }).toEqual({ origin, size: i + 1 });
        expect(opened.root.toString('base64')).toBe(cp.rootHash);
        seen.push({ size: opened.size, root: opened.root });
      }
    }
    const leaves = await leavesOf(client);
    expect(leaves).toHaveLength(300);
    for (const { size, root } of seen) expect(root).toEqual(mth(leaves.slice(0, size)));
    const roots = [mth([])];
    for (let n = 1; n <= 300; n++) roots.push(mth(leaves.slice(0, n)));
    let checked = 0;
    for (let n = 1; n <= 300; n++) {
      for (const index of new Set([0, n - 1, (n * 7919) % n, Math.floor(n / 2)])) {
        const p = await client.request('ledger.tlog.inclusion', { index, size: n }, opts);
        expect(b(p.leafHash)).toEqual(leaves[index]);
        expect(b(p.rootHash)).toEqual(roots[n]);
        expect(checkInclusion(leaves[index]!, index, n, p.hashes.map(b), roots[n]!)).toBe(true);
        checked += 1;
      }
      for (const m of new Set([0, n - 1, Math.floor(n / 3), n])) {
        const c = await client.request('ledger.tlog.consistency', { from: m, to: n }, opts);
        expect([b(c.fromRoot), b(c.toRoot)]).toEqual([roots[m], roots[n]]);
        expect(checkConsistency(m, n, roots[m]!, roots[n]!, c.hashes.map(b))).toBe(true);
        checked += 1;
      }
      const to300 = await client.request('ledger.tlog.consistency', { from: n, to: 300 }, opts);
      expect(checkConsistency(n, 300, roots[n]!, roots[300]!, to300.hashes.map(b))).toBe(true);
    }
    expect(checked).toBeGreaterThan(1500);
    // A wrong path does not verify: the independent verifier can fail.
    const p = await client.request('ledger.tlog.inclusion', { index: 5, size: 300 }, opts);
    expect(checkInclusion(leaves[6]!, 5, 300, p.hashes.map(b), roots[300]!)).toBe(false);
  }, 300_000);

  it('refuses proofs outside the log with exact messages', async () => {
    const size = (await client.request('ledger.head', {}, opts)).entryIndex! + 1;
    await expect(
      client.request('ledger.tlog.inclusion', { index: 3, size: 3 }, opts),
    ).rejects.toThrow('leaf index 3 is not below tree size 3');
    await expect(
      client.request('ledger.tlog.inclusion', { index: 0, size: size + 1 }, opts),
    ).rejects.toThrow(`tree size ${size + 1} is larger than the log's tree size ${size}`);
    await expect(
      client.request('ledger.tlog.consistency', { from: 5, to: 4 }, opts),
    ).rejects.toThrow('old tree size 5 is larger than new tree size 4');
  });

  it('catches a flipped byte in a tree row: the integrity scan names the node, and a replica started on it refuses every append', async () => {
    const leaves = await leavesOf(client);
    expect(leaves).toHaveLength(300);
    // (8, 0) covers leaves 0…255: the first node of the compact range of size 300.
    await mode.database.query(
      `UPDATE ledger.tree_nodes SET hash = set_byte(hash, 0, get_byte(hash, 0) # 1)
        WHERE level = 8 AND node_index = 0`,
    );
    const transport = otherTransport(mode);
    const replica = await startLedger({
      transport,
      database: mode.database,
      replica: 'ledger-tlog-flipped',
    });
    const other = await connectRpc(transport, 'ledger-tlog-flipped-client');
    try {
      const report = await replica.integrity.done;
      expect({ state: report.state, problems: report.problems }).toEqual({
        state: 'mismatch',
        problems: [
          'tree node (level 8, index 0) is not the hash of its two children',
          "the head's tree border hash 0 is not the stored tree node (level 8, index 0)",
        ],
      });
      const root = mth(leaves)
        .toString('base64')
        .replace(/[+/]/g, (c) => `\\${c}`);
      const refusal = new RegExp(
        `^appends are refused: the head's compact range at size 300 is not the stored tree's \\(root ${root} vs [A-Za-z0-9+/]{43}=\\)$`,
      );
      await expect(
        other.request('ledger.commit', toolCall('mcp:ep-tlog:flipped', { x: 1 }).request, opts),
      ).rejects.toThrow(refusal);
      await expect(other.request('ledger.tlog.checkpoint', {}, opts)).rejects.toThrow(refusal);
      expect((await other.request('ledger.head', {}, opts)).entryIndex).toBe(299);
    } finally {
      await other.close();
      await replica.close();
    }
  });
});

describe('transparency log under load over PostgreSQL + NATS', () => {
  let mode: ModeSetup;
  let ledger: RunningLedger;
  const clients: RpcClient[] = [];

  beforeAll(async () => {
    mode = await MODES[0]![1]();
    ledger = await startLedger({ transport: mode.transport, database: mode.database });
    for (let i = 0; i < 16; i++)
      clients.push(await connectRpc(mode.transport, `ledger-tlog-load-${i}`));
  }, 60_000);

  afterAll(async () => {
    for (const c of clients) await c.close();
    await ledger?.close();
    await mode?.teardown();
  });

  it('after 10,000 entries from 16 concurrent clients (group commits), serves the root recomputed from every entry header', async () => {
    const PER_CLIENT = 625;
    await Promise.all(
      clients.map(async (c, k) => {
        for (let i = 0; i < PER_CLIENT; i++)
          await c.request(
            'ledger.commit',
            toolCall(`mcp:ep-load:c${k}-${i}`, { k, i }).request,
            opts,
          );
      }),
    );
    const leaves = await leavesOf(clients[0]!);
    expect(leaves).toHaveLength(10_001);
    const { vkey } = await clients[0]!.request('ledger.tlog.key', {}, opts);
    const cp = await clients[0]!.request('ledger.tlog.checkpoint', {}, opts);
    const opened = openCheckpointNote(cp.note, vkey);
    expect(opened.size).toBe(10_001);
    expect(opened.root).toEqual(mth(leaves));
    const p = await clients[1]!.request(
      'ledger.tlog.inclusion',
      { index: 4321, size: 10_001 },
      opts,
    );
    expect(checkInclusion(leaves[4321]!, 4321, 10_001, p.hashes.map(b), opened.root)).toBe(true);
  }, 600_000);
});
