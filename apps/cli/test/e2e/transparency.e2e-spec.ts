/**
 * The log as a transparency log, end to end (README "Verifying the log"): `world checkpoint`,
 * `world proof`, `world verify` run as real processes against a whole World, in both run modes. An
 * attacker with database access rewrites a suffix of the log consistently — entries, links, worlds,
 * the head and the tree rows, recomputed here with the independent verifier's hashing — and `world
 * why` still verifies, while `world verify --checkpoint` names the first saved size the live log no
 * longer matches. Forged, foreign, shrunk and malformed checkpoints are refused.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  entryBytes,
  entryHash,
  makeJsonObject,
  toWireObject,
  worldRef,
  type LogEntry,
  type Ref,
} from '@world/canonical';
import { generateNoteKey, parseSignerKey, signCheckpoint } from '@world/tlog';
import { mth, mthLeaf } from '@world/testing';
import { requireBuiltCli, runCli, type CliRun } from '../support/cli.js';
import { MODES, startTestSystem, type TestSystem } from '../support/system.js';

const E2E_TIMEOUT_MS = 120_000;
const lines = (text: string) => text.split('\n').filter((l) => l !== '');

describe.each(MODES)('verifying the log (%s mode)', (mode) => {
  let w: TestSystem;
  let env: Record<string, string>;
  let dir: string;
  let vkey: string;
  let origin: string;
  const world = (args: string[]): Promise<CliRun> => runCli(args, env);
  const file = (name: string) => join(dir, name);

  /** One REST commit of a demo state on the head (world-spec §5.10). */
  async function restCommit(note: string): Promise<void> {
    const headRef = (await w.get('/v1/head')).text as Ref;
    const head = (await w.get(`/v1/worlds/${headRef}`)).json;
    const state = makeJsonObject('world/demo/state', 'operator/quickstart', { note, mode });
    const header = {
      entryIndex: head.revision + 1,
      semanticsEpoch: 1,
      transitionFn: state.hash,
      interpreter: state.hash,
      prevEntryHash: head.logHead,
      writtenBy: 'operator/quickstart',
    };
    const hash = entryHash(header, state.hash);
    const shape = { revision: head.revision + 1, stateRoot: state.hash, logHead: hash };
    const res = await fetch(`${w.url}/v1/commit`, {
      method: 'POST',
      headers: { authorization: `Bearer ${w.operatorToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        observedHead: headRef,
        objects: [toWireObject(state)],
        nextWorld: { ref: worldRef(shape), ...shape },
        entry: { header, entryHash: hash, transitionRef: state.hash },
      }),
    });
    expect(res.status).toBe(200);
  }

  const sql = (text: string, params: unknown[] = []) => w.system.database.query(text, params);

  /**
   * The attacker: rewrites entries from..head with other states, recomputing every hash, link,
   * world, the head row and all tree rows, and drops the ledger's own signed checkpoints.
   */
  async function rewriteSuffix(from: number): Promise<void> {
    const entries: LogEntry[] = [];
    for (let i = 0; ; i++) {
      const got = await w.get(`/v1/log/${i}`);
      if (got.status !== 200) break;
      entries.push(got.json);
    }
    let prev = entries[from - 1]!.entryHash;
    let last: { ref: Ref; revision: number; entryHash: Ref } | null = null;
    for (let i = from; i < entries.length; i++) {
      const state = makeJsonObject('world/demo/state', 'operator/quickstart', { forged: i });
      const header = {
        ...entries[i]!.header,
        prevEntryHash: prev,
        transitionFn: state.hash,
        interpreter: state.hash,
      };
      const hash = entryHash(header, state.hash);
      const shape = { revision: i, stateRoot: state.hash, logHead: hash };
      const ref = worldRef(shape);
      await sql(
        'INSERT INTO ledger.objects (hash, interface_hash, semantic_id, provenance, payload) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING',
        [state.hash, state.interfaceHash, state.semanticId, state.provenance, state.payload],
      );
      await sql('DELETE FROM ledger.commit_objects WHERE entry_index = $1', [i]);
      await sql(
        `UPDATE ledger.log_entries SET entry_hash = $2, transition_fn = $3, interpreter = $3,
           prev_entry_hash = $4, transition_ref = $3 WHERE entry_index = $1`,
        [i, hash, state.hash, prev],
      );
      await sql('INSERT INTO ledger.commit_objects (object_ref, entry_index) VALUES ($1, $2)', [
        state.hash,
        i,
      ]);
      await sql(
        'INSERT INTO ledger.worlds (ref, revision, state_root, log_head) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
        [ref, i, state.hash, hash],
      );
      entries[i] = { header, entryHash: hash, transitionRef: state.hash };
      prev = hash;
      last = { ref, revision: i, entryHash: hash };
    }
    // The whole tree, recomputed from the rewritten headers (RFC 9162 §2.1.1, perfect subtrees).
    const leaves = entries.map((e) => mthLeaf(entryBytes(e.header, e.transitionRef)));
    await sql('DELETE FROM ledger.tree_nodes');
    for (let level = 0, width = 1; width <= leaves.length; level++, width *= 2)
      for (let index = 0; (index + 1) * width <= leaves.length; index++)
        await sql('INSERT INTO ledger.tree_nodes (level, node_index, hash) VALUES ($1, $2, $3)', [
          level,
          index,
          mth(leaves.slice(index * width, (index + 1) * width)),
        ]);
    const border: Buffer[] = [];
    for (
      let at = 0, width = 2 ** Math.floor(Math.log2(leaves.length));
      at < leaves.length;
      width /= 2
    )
      if (leaves.length - at >= width) {
        border.push(mth(leaves.slice(at, at + width)));
        at += width;
      }
    await sql(
      `UPDATE ledger.heads SET world_ref = $1, entry_hash = $2, revision = $3, tree_border = $4 WHERE key = 'selected'`,
      [last!.ref, last!.entryHash, last!.revision, Buffer.concat(border)],
    );
    await sql('DELETE FROM ledger.checkpoints');
  }

  beforeAll(async () => {
    requireBuiltCli();
    w = await startTestSystem(mode);
    env = { WORLD_URL: w.url, WORLD_HOME: w.paths.home };
    dir = await mkdtemp(join(tmpdir(), `world-tlog-${mode}-`));
    vkey = (await w.get('/.well-known/world-log-key', null)).text.trim();
    origin = vkey.split('+')[0]!;
    await writeFile(file('log.vkey'), `${vkey}\n`);
  }, E2E_TIMEOUT_MS);
  afterAll(async () => {
    await w?.close();
    await rm(dir, { recursive: true, force: true });
  }, E2E_TIMEOUT_MS);

  it(
    'keeps the signing key at mode 0600 under WORLD_HOME and publishes its verifier key to anyone',
    async () => {
      const { mode: fileMode } = await import('node:fs').then((fs) =>
        fs.statSync(w.paths.logKeyFile),
      );
      expect(fileMode & 0o777).toBe(0o600);
      const skey = (await readFile(w.paths.logKeyFile, 'utf8')).trim();
      expect(parseSignerKey(skey).vkey).toBe(vkey);
      expect(vkey).toMatch(/^world\.local\/log-[0-9a-f]{16}\+[0-9a-f]{8}\+[A-Za-z0-9+/]{44}$/);
      const health = await world(['health']);
      expect([health.code, lines(health.stdout)[1]]).toEqual([0, `log key: ${vkey}`]);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'saves checkpoints, proves an entry offline, and verifies the live log against saved checkpoints',
    async () => {
      for (const size of [3, 5, 7]) {
        while (
          ((await w.get(`/v1/worlds/${(await w.get('/v1/head')).text}`)).json.revision as number) <
          size - 1
        )
          await restCommit(`entry for size ${size}`);
        const saved = await world(['checkpoint', '--out', file(`cp${size}`)]);
        expect([saved.code, saved.stdout, saved.stderr]).toEqual([
          0,
          '',
          `checkpoint of size ${size} written to ${file(`cp${size}`)}\n`,
        ]);
      }
      const cp7 = await readFile(file('cp7'), 'utf8');
      expect(lines(cp7).slice(0, 2)).toEqual([origin, '7']);

      const bundle = await world(['proof', '4']);
      expect([bundle.code, bundle.stderr]).toEqual([0, '']);
      await writeFile(file('bundle.json'), bundle.stdout);
      expect(JSON.parse(bundle.stdout).tlogProof.split('\n').slice(0, 2)).toEqual([
        'c2sp.org/tlog-proof@v1',
        'index 4',
      ]);
      const entry4 = (await w.get('/v1/log/4')).json as LogEntry;
      const offline = await runCli(
        ['verify', '--bundle', file('bundle.json'), '--key', file('log.vkey')],
        {},
      );
      expect([offline.code, offline.stderr]).toEqual([0, '']);
      expect(lines(offline.stdout)).toEqual([
        `verify: bundle ${file('bundle.json')} (entry 4)`,
        `  ✓ key        ${vkey} (${file('log.vkey')})`,
        `  ✓ entry      entry 4 hashes to its entry hash ${entry4.entryHash}`,
        '  ✓ objects    1 object(s) hash to their refs, the transition record included',
        `  ✓ inclusion  entry 4 ∈ signed checkpoint 7 (${origin})`,
        'all 4 check(s) passed',
      ]);

      const ok = await world(['verify', '--checkpoint', file('cp3'), '--checkpoint', file('cp7')]);
      expect([ok.code, ok.stderr]).toEqual([0, '']);
      const out = lines(ok.stdout);
      expect(out.map((l) => l.slice(0, 15))).toEqual([
        `verify: the liv`,
        '  ✓ key        ',
        '  ✓ live       ',
        '  ✓ saved      ',
        '  ✓ saved      ',
        '  ✓ consistent ',
        '  ✓ consistent ',
        'all 6 check(s) ',
      ]);
      expect(out[5]).toBe(
        '  ✓ consistent size 3 → 7: the live log extends the saved checkpoint (RFC 9162 §2.1.4)',
      );
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'refuses a checkpoint with a bad signature, by a wrong key, of a larger size than the live log, or malformed, each with a precise line and exit 3',
    async () => {
      const cp7 = await readFile(file('cp7'), 'utf8');
      const [text, sigs] = [
        cp7.slice(0, cp7.indexOf('\n\n') + 1),
        cp7.slice(cp7.indexOf('\n\n') + 1),
      ];
      const altered = text.replace(
        /^(.*\n7\n)(.)/,
        (_m, head: string, c: string) => `${head}${c === 'A' ? 'B' : 'A'}`,
      );
      await writeFile(file('bad-sig'), `${altered}${sigs}`);
      await writeFile(file('malformed'), 'not a checkpoint\n');
      const other = generateNoteKey(origin);
      await writeFile(file('other.vkey'), `${other.vkey}\n`);
      const keyId = vkey.split('+')[1];
      const otherId = other.vkey.split('+')[1];
      const signer = parseSignerKey((await readFile(w.paths.logKeyFile, 'utf8')).trim());
      await writeFile(
        file('too-big'),
        signCheckpoint(
          { origin, size: 100, rootHash: Buffer.alloc(32, 7), extensions: [] },
          signer,
        ),
      );

      const bad = await world(['verify', '--checkpoint', file('bad-sig')]);
      expect([bad.code, lines(bad.stdout)[3], lines(bad.stdout).at(-1)]).toEqual([
        3,
        `  ✗ saved      ${file('bad-sig')}: the signature by ${origin}+${keyId} does not verify: the note was altered or not signed by this key`,
        '1 of 3 check(s) failed',
      ]);
      const wrong = await world([
        'verify',
        '--checkpoint',
        file('cp7'),
        '--key',
        file('other.vkey'),
      ]);
      expect([wrong.code, lines(wrong.stdout).slice(1, 4)]).toEqual([
        3,
        [
          `  ✓ key        ${other.vkey} (${file('other.vkey')})`,
          `  ✗ live       GET /v1/checkpoint: the note is signed by ${origin}+${keyId}, not by the known key ${origin}+${otherId}`,
          `  ✗ saved      ${file('cp7')}: the note is signed by ${origin}+${keyId}, not by the known key ${origin}+${otherId}`,
        ],
      ]);
      const big = await world(['verify', '--checkpoint', file('too-big')]);
      expect([big.code, lines(big.stdout).slice(4)]).toEqual([
        3,
        [
          "  ✗ consistent the live log's tree size 7 is smaller than the saved checkpoint's size 100: the log was truncated or forked",
          '1 of 4 check(s) failed',
          'first size that does not match: 100',
        ],
      ]);
      const malformed = await world(['verify', '--checkpoint', file('malformed')]);
      expect([malformed.code, lines(malformed.stdout)[3]]).toEqual([
        3,
        `  ✗ saved      ${file('malformed')}: ${MALFORMED}`,
      ]);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'catches a consistent rewrite of a suffix that `world why` cannot: verify --checkpoint exits 3 naming the first size that does not match',
    async () => {
      await rewriteSuffix(4);
      const why = await world(['why', 'head']);
      expect([why.code, lines(why.stdout).at(-1)]).toEqual([0, 'all 5 link(s) verified']);
      const r = await world([
        'verify',
        '--checkpoint',
        file('cp3'),
        '--checkpoint',
        file('cp5'),
        '--checkpoint',
        file('cp7'),
      ]);
      const out = lines(r.stdout);
      expect([r.code, r.stderr]).toEqual([3, '']);
      expect(out[6]).toBe(
        '  ✓ consistent size 3 → 7: the live log extends the saved checkpoint (RFC 9162 §2.1.4)',
      );
      expect(out[7]).toMatch(
        /^ {2}✗ consistent the live log's root at size 5 is [A-Za-z0-9+/]{43}=, not the saved checkpoint's [A-Za-z0-9+/]{43}=: history up to size 5 was rewritten$/,
      );
      expect(out[8]).toMatch(/^ {2}✗ consistent the live log's root at size 7 is /);
      expect(out.slice(-2)).toEqual([
        '2 of 8 check(s) failed',
        'first size that does not match: 5',
      ]);
    },
    E2E_TIMEOUT_MS,
  );
});

/** What the note parser says of a text with no signature block (C2SP signed-note). */
const MALFORMED =
  'note has no signature block: its text must be followed by a blank line and signature lines';
