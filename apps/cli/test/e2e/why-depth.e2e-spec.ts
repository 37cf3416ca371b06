/**
 * `world why` finds an entry by its invocation id or by any ref its record names at any depth of
 * the log (world-spec §7.3): a tool call buried under 600 later REST commits is found exactly,
 * through GET /v1/locate, by the CLI and for the operator; another episode's session finds
 * nothing by its payload's refs (DESIGN.md §3). Distributed mode (real PostgreSQL and NATS).
 */
import { entryHash, makeJsonObject, toWireObject, worldRef, type Ref } from '@world/canonical';
import { shortRef } from '@world/why';
import { requireBuiltCli, runCli } from '../support/cli.js';
import { FULL_GRANTS, startTestSystem, type TestSystem } from '../support/system.js';

const E2E_TIMEOUT_MS = 300_000;
/** REST commits above the tool call (more than the 500 entries `why` used to scan back). */
const DEPTH = 600;
const WRITTEN_BY = 'episode:deep/filler';

describe('world why at depth (distributed mode)', () => {
  let w: TestSystem;
  let env: Record<string, string>;
  let first: number;
  let record: { invocationId: string; input: string; output: string; plan: string };
  let outsider: string;

  beforeAll(async () => {
    requireBuiltCli();
    w = await startTestSystem('distributed');
    env = { WORLD_URL: w.url, WORLD_HOME: w.paths.home };
    await w.episode('deep', { 'notes.txt': 'deep\n' });
    await w.episode('elsewhere');
    const token = await w.session('deep', [
      ...FULL_GRANTS,
      { effect: 'World.Commit', scope: 'log', budget: DEPTH },
    ]);
    outsider = await w.session('elsewhere', FULL_GRANTS);
    await w.call(token, 'ailang-read', { path: 'notes.txt' });
    let head = (await w.get('/v1/head')).text.trim() as Ref;
    let world = (await w.get(`/v1/worlds/${head}`)).json;
    first = world.revision;
    const entry = (await w.get(`/v1/log/${first}`)).json;
    record = await w.payload(entry.transitionRef, w.operatorToken);
    let prev = entry.entryHash as Ref;
    for (let i = 0; i < DEPTH; i += 1) {
      const fact = makeJsonObject('world/demo/fact', WRITTEN_BY, { i });
      const header = {
        entryIndex: world.revision + 1,
        semanticsEpoch: 1,
        transitionFn: fact.hash,
        interpreter: fact.hash,
        prevEntryHash: prev,
        writtenBy: WRITTEN_BY,
      };
      const hash = entryHash(header, fact.hash);
      const next = { revision: world.revision + 1, stateRoot: fact.hash, logHead: hash };
      world = { ref: worldRef(next), ...next };
      const res = await fetch(`${w.url}/v1/commit`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({
          observedHead: head,
          objects: [toWireObject(fact)],
          nextWorld: world,
          entry: { header, entryHash: hash, transitionRef: fact.hash },
        }),
      });
      expect(res.status).toBe(200);
      head = world.ref as Ref;
      prev = hash;
    }
  }, E2E_TIMEOUT_MS);

  afterAll(async () => {
    await w?.close();
  });

  it(
    `finds the tool call ${DEPTH} entries down by its invocation id and its refs`,
    async () => {
      expect(
        (await w.get('/v1/head').then((r) => w.get(`/v1/worlds/${r.text.trim()}`))).json.revision,
      ).toBe(first + DEPTH);
      const headings = await Promise.all(
        [record.invocationId, record.input, record.output, record.plan].map(async (target) => {
          const run = await runCli(['why', target], env);
          const out = run.stdout.split('\n');
          return [run.code, out[0], out.at(-2)];
        }),
      );
      expect(headings).toEqual([
        [0, `why: entry ${first} (invocation ${record.invocationId})`, 'all 8 link(s) verified'],
        [
          0,
          `why: entry ${first} (matched by input ${shortRef(record.input)})`,
          'all 8 link(s) verified',
        ],
        [
          0,
          `why: entry ${first} (matched by output ${shortRef(record.output)})`,
          'all 8 link(s) verified',
        ],
        [
          0,
          `why: entry ${first} (matched by plan ${shortRef(record.plan)})`,
          'all 8 link(s) verified',
        ],
      ]);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    "GET /v1/locate: exact for the operator, nothing of another episode's payload for a session",
    async () => {
      const output = `/v1/locate?ref=${record.output}&roles=output`;
      const id = `/v1/locate?invocation=${encodeURIComponent(record.invocationId)}`;
      expect((await w.get(output, w.operatorToken)).json).toEqual({ entryIndex: first });
      expect((await w.get(id, w.operatorToken)).json).toEqual({ entryIndex: first });
      for (const path of [output, id]) {
        const hidden = await w.get(path, outsider);
        expect([hidden.status, hidden.json]).toEqual([
          404,
          { error: { class: 'NotFound', message: 'log entry not found' } },
        ]);
      }
      const bad = await w.get(`/v1/locate?ref=${record.output}&roles=output,nope`, w.operatorToken);
      expect([bad.status, bad.json.error.message]).toEqual([
        400,
        'roles must be a comma-separated list of record, input, output, plan, effect, request, result',
      ]);
    },
    E2E_TIMEOUT_MS,
  );
});
