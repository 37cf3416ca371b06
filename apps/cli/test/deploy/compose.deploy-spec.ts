/**
 * The compose deployment, run for real (DESIGN.md §6 "Deployment"; infra/README.md "Testing the
 * deployment"): builds the four images with infra/build-images.sh, brings docker-compose.yml up
 * with `--scale broker=3 --scale planner=2` on a real Docker engine, waits for every container to
 * be healthy, and drives tool calls over 8 episodes through the published port with the official
 * MCP client while it kills one broker container (SIGKILL) and restarts the ledger, then runs
 * `down` (volumes kept) and `up` again. After each step it checks the invariants of
 * invariants.ts, and each step's own: what a kill may leave, what a restart may not.
 *
 * The base images come from WORLD_NODE_IMAGE, WORLD_NATS_IMAGE and WORLD_POSTGRES_IMAGE (the
 * official ones by default; .ci/run builds stand-ins, infra/stand-ins/). The build reaches the
 * registries over WORLD_BUILD_NETWORK and trusts WORLD_BUILD_CA (default: the host's
 * NODE_EXTRA_CA_CERTS), passed as a build secret. Timings are printed, never asserted.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventually, freePort } from '@world/testing';
import {
  composeCommand,
  containerIp,
  containersOf,
  extraCertificates,
  must,
  publishedOn,
  run,
  scanImages,
  type Container,
} from './docker.js';
import { checkInvariants, StackState, unrecorded, type Expectation } from './invariants.js';
import { invocationOf, isDocumentedError, planCalls, WorldClient, type Answer } from './load.js';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '../../../..');
const TAG = 'deploy-test';
const APPS = ['ledger', 'broker', 'planner', 'gateway'];
const EPISODES = Array.from({ length: 8 }, (_, i) => `dep-${i}`);
/** Odd episodes run out of budget in the second load (denials are part of what is checked). */
const budgetOf = (i: number) => (i % 2 === 0 ? 60 : 30);
/** Calls per episode in each load: 8 × (20 + 20 + 5) = 360 calls, plus 8 seeds. */
const PER_EPISODE = { kill: 20, restart: 20, again: 5 };
const STEP_MS = 20 * 60_000;

const project = `worlddeploy${process.pid}`;
const steps: Array<[string, number]> = [];
let compose: string[];
let env: NodeJS.ProcessEnv;
let port: number;
let state: StackState | undefined;
let world: WorldClient;
const answers: Answer[] = [];
const exp: Expectation = { answers, budgets: new Map(), worktrees: new Map(), broker: '' };

const secret = (name: string) => readFileSync(join(root, 'infra/secrets', name), 'utf8').trim();
const timed = async <T>(label: string, f: () => Promise<T>): Promise<T> => {
  const started = Date.now();
  try {
    return await f();
  } finally {
    steps.push([label, Date.now() - started]);
    console.log(`deploy: ${label} took ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
};
const dc = (args: string[]) =>
  must(compose[0]!, [...compose.slice(1), '-p', project, ...args], { cwd: root, env });

/** Waits until `count` containers of the project run and all report healthy. */
async function healthy(count: number): Promise<Container[]> {
  const deadline = Date.now() + 5 * 60_000;
  for (;;) {
    const cs = (await containersOf(project)).filter((c) => c.running);
    if (cs.length === count && cs.every((c) => c.health === 'healthy')) return cs;
    if (Date.now() > deadline)
      throw new Error(`not healthy: ${cs.map((c) => `${c.name}=${c.health}`).join(' ')}`);
    await new Promise((r) => setTimeout(r, 2_000));
  }
}

async function connectState(): Promise<void> {
  await state?.close().catch(() => undefined);
  const pg = (await containersOf(project)).find((c) => c.service === 'postgres')!;
  state = await StackState.connect(await containerIp(pg.id), secret('postgres_password'));
}

/** The broker containers, and the invocations each decided (its `effect executed` lines). */
async function brokerWork(): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  for (const c of (await containersOf(project)).filter((x) => x.service === 'broker')) {
    const logs = await run('docker', ['logs', c.id]);
    const decided = new Set<string>();
    for (const line of `${logs.stdout}\n${logs.stderr}`.split('\n'))
      if (line.includes('"msg":"effect executed"'))
        decided.add((JSON.parse(line) as { invocationId: string }).invocationId);
    out.set(c.name, decided);
  }
  return out;
}

/** Every broker container decided at least one of `answers` (its NATS queue group shares the work). */
async function expectEveryBrokerServed(of: Answer[]): Promise<void> {
  const ids = new Set(of.map((a) => invocationOf(a.call)));
  const work = await brokerWork();
  expect(work.size).toBe(3);
  expect(
    [...work].map(([name, decided]) => [name, [...decided].some((id) => ids.has(id))]),
  ).toEqual([...work.keys()].map((name) => [name, true]));
}

/**
 * Freezes every broker just before its outcome write (an EXCLUSIVE lock on
 * broker.effect_outcomes that the test holds), SIGKILLs the container of one broker that has a
 * call waiting there (its effect ran, its episode's lease is held: what a crash mid-call leaves),
 * then lets the others go on. A waiting connection's client address is its container's address
 * on the compose network, which says which broker waits.
 * @returns the killed container; `killed` receives the time of the kill (ms since the epoch)
 */
async function killBusyBroker(
  brokers: Container[],
  killed: (at: number) => void,
): Promise<Container> {
  const byAddress = new Map<string, Container>();
  for (const b of brokers) byAddress.set(await containerIp(b.id), b);
  const pgc = (await containersOf(project)).find((c) => c.service === 'postgres')!;
  const lock = await StackState.connect(await containerIp(pgc.id), secret('postgres_password'));
  try {
    for (let attempt = 0; attempt < 20; attempt++) {
      await lock.q('BEGIN');
      await lock.q('LOCK TABLE broker.effect_outcomes IN EXCLUSIVE MODE');
      const waiting = await eventually(
        async () => {
          const rows = await state!.q<{ addr: string }>(
            "SELECT DISTINCT host(a.client_addr) AS addr FROM pg_stat_activity a JOIN pg_locks l ON l.pid = a.pid WHERE NOT l.granted AND l.relation = 'broker.effect_outcomes'::regclass",
          );
          return rows.map((r) => byAddress.get(r.addr)).find(Boolean);
        },
        3_000,
        'a broker call waiting to write its outcome',
      ).catch(() => undefined);
      if (waiting !== undefined) {
        killed(Date.now());
        await must('docker', ['kill', '--signal', 'KILL', waiting.id]);
        await lock.q('ROLLBACK');
        return waiting;
      }
      await lock.q('ROLLBACK');
    }
    throw new Error('no broker call reached its outcome write in 20 tries');
  } finally {
    await lock.close();
  }
}

/**
 * A call the stack refused without taking it: no connection (the gateway is gone) or the
 * draining gateway's 503 (it takes no new request while it shuts down).
 */
const isRefused = (a: Answer) =>
  a.kind === 'error' && (a.code === 0 || (a.code === 503 && /shutting down/.test(a.message)));

/** Every answer is a result or a documented JSON-RPC (or HTTP 503) error. */
function expectDocumented(of: Answer[]): void {
  expect(of.filter((a) => a.kind === 'error' && !isDocumentedError(a.code, a.message))).toEqual([]);
}

beforeAll(async () => {
  const info = await run('docker', ['info', '--format', '{{.ServerVersion}}']);
  if (info.code !== 0)
    throw new Error(
      `no Docker engine answers (docker info: ${info.stderr.trim()}); .ci/run starts one`,
    );
  compose = await composeCommand();
  port = await freePort();
  env = { WORLD_IMAGE_TAG: TAG, WORLD_HTTP_PORT: String(port) };
  await must('sh', [join(root, 'infra/make-secrets.sh')]);
}, STEP_MS);

afterAll(async () => {
  await world?.closeAll();
  await state?.close().catch(() => undefined);
  if (compose !== undefined)
    await run(compose[0]!, [...compose.slice(1), '-p', project, 'down', '-v'], { cwd: root, env });
  await run('docker', [
    'rmi',
    ...APPS.map((a) => `world-${a}:${TAG}`),
    `world-ledger:${TAG}-build`,
  ]);
  console.log(
    `deploy: steps ${steps.map(([l, ms]) => `${l} ${(ms / 1000).toFixed(1)} s`).join(', ')}`,
  );
}, STEP_MS);

describe('docker-compose.yml on a real Docker engine', () => {
  it(
    'builds the four images with BuildKit, and no layer of them or of the build stage holds a secret, the build CA or a .git path',
    async () => {
      const buildEnv = {
        WORLD_IMAGE_TAG: TAG,
        WORLD_BUILD_CA: process.env.WORLD_BUILD_CA ?? process.env.NODE_EXTRA_CA_CERTS ?? '',
      };
      await timed('build images', () =>
        must('sh', [join(root, 'infra/build-images.sh')], { env: buildEnv, timeoutMs: STEP_MS }),
      );
      // The build stage of one service: everything the build context brought in (`COPY . .`).
      await timed('build the build stage', () =>
        must('sh', [join(root, 'infra/build-images.sh'), 'ledger'], {
          env: { ...buildEnv, WORLD_BUILD_TARGET: 'build', WORLD_IMAGE_TAG: `${TAG}-build` },
        }),
      );
      const needles = new Map([
        ['postgres_password', secret('postgres_password')],
        ['database_url', secret('database_url')],
        ['operator_token', secret('operator_token')],
        ...(buildEnv.WORLD_BUILD_CA ? extraCertificates(buildEnv.WORLD_BUILD_CA) : []),
      ]);
      // A control the scan must find: the entry point's text is in every image.
      const control = 'DATABASE_URL_FILE names the file holding DATABASE_URL';
      const images = [...APPS.map((a) => `world-${a}:${TAG}`), `world-ledger:${TAG}-build`];
      const findings = await timed('scan image layers', () =>
        scanImages(images, new Map([...needles, ['control', control]])),
      );
      expect(findings).toEqual({ gitPaths: [], needles: ['control'] });
    },
    STEP_MS,
  );

  it(
    'comes up with --scale broker=3 --scale planner=2: nine containers healthy, the gateway published on loopback only',
    async () => {
      await timed('up and healthy', async () => {
        await dc(['up', '-d', '--no-build', '--scale', 'broker=3', '--scale', 'planner=2']);
        return healthy(9);
      });
      const cs = await containersOf(project);
      expect(cs.map((c) => c.service).sort()).toEqual([
        'broker',
        'broker',
        'broker',
        'gateway',
        'ledger',
        'nats',
        'planner',
        'planner',
        'postgres',
      ]);
      const gateway = cs.find((c) => c.service === 'gateway')!;
      expect(await publishedOn(gateway.id, 7644)).toEqual([`127.0.0.1:${port}`]);
      for (const c of cs.filter((x) => x.service !== 'gateway'))
        expect([c.service, await publishedOn(c.id, 7644)]).toEqual([c.service, []]);

      await connectState();
      world = new WorldClient(`http://127.0.0.1:${port}`, secret('operator_token'));
      for (const [i, e] of EPISODES.entries()) {
        const worktree = await world.createEpisode(e, budgetOf(i));
        expect(worktree).toBe(`/var/lib/world/worktrees/${e}`);
        exp.budgets.set(e, budgetOf(i));
        exp.worktrees.set(e, worktree);
      }
      const seeds = await Promise.all(EPISODES.map((e, i) => world.seedJournal(e, 2 * i)));
      expect(seeds.map((s) => [s.call.episode, s.kind])).toEqual(
        EPISODES.map((e) => [e, 'result']),
      );
      answers.push(...seeds);
      exp.broker = cs.find((c) => c.service === 'broker')!.id;
      await checkInvariants(state!, exp);
    },
    STEP_MS,
  );

  it(
    'drives 160 calls while one broker container is SIGKILLed: only calls in flight on it may fail, each with a documented error; nothing runs twice',
    async () => {
      const brokers = (await containersOf(project)).filter((c) => c.service === 'broker');
      let killAt = 0;
      let kill: Promise<Container> | undefined;
      const load = await timed('load with a broker kill', () =>
        world.drive(planCalls('k', EPISODES, PER_EPISODE.kill), (so) => {
          if (kill === undefined && so.length >= 40) {
            kill = killBusyBroker(brokers, (at) => (killAt = at));
            // Awaited after the load; until then a failure must not count as unhandled.
            kill.catch(() => undefined);
          }
        }),
      );
      const victim = (await kill)!;
      exp.broker = brokers.find((b) => b.id !== victim.id)!.id;
      answers.push(...load);
      expect(load).toHaveLength(160);
      expectDocumented(load);
      await expectEveryBrokerServed(load.filter((a) => a.sentAt < killAt));

      // The stall: how long an episode waited after the kill for its next committed call.
      const stall = Math.max(
        ...EPISODES.map((e) => {
          const next = load
            .filter((a) => a.call.episode === e && a.kind === 'result' && a.answeredAt > killAt)
            .map((a) => a.answeredAt);
          return next.length === 0 ? Infinity : Math.min(...next) - killAt;
        }),
      );
      console.log(
        `deploy: longest stall of an episode after the broker kill: ${(stall / 1000).toFixed(1)} s`,
      );
      console.log(
        `deploy: kill load: ${load.filter((a) => a.kind === 'result').length} results, ${load.filter((a) => a.kind === 'error').length} errors`,
      );

      const { traces } = await checkInvariants(state!, exp);
      // What a kill may leave: effects unrecorded only for calls that were in flight at the kill,
      // answered with an error.
      const lost = unrecorded(load, traces);
      expect(
        lost.filter((a) => !(a.kind === 'error' && a.sentAt <= killAt && a.answeredAt >= killAt)),
      ).toEqual([]);

      // The orchestrator's restart of the killed replica; it reports what it held as indeterminate.
      await timed('restart the killed broker', async () => {
        await must('docker', ['start', victim.id]);
        return healthy(9);
      });
    },
    STEP_MS,
  );

  it(
    'drives 160 calls while the ledger restarts: every call answered, every effect that ran committed to the log',
    async () => {
      let restart: Promise<string> | undefined;
      const load = await timed('load with a ledger restart', () =>
        world.drive(planCalls('r', EPISODES, PER_EPISODE.restart), (so) => {
          if (restart === undefined && so.length >= 40) {
            restart = dc(['restart', 'ledger']);
            restart.catch(() => undefined);
          }
        }),
      );
      await restart;
      // The restarted ledger is back before anything is read (and before the next step).
      await healthy(9);
      answers.push(...load);
      expect(load).toHaveLength(160);
      expectDocumented(load);
      console.log(
        `deploy: restart load: ${load.filter((a) => a.kind === 'result').length} results, ${load.filter((a) => a.kind === 'error').length} errors`,
      );
      await expectEveryBrokerServed(load);
      const { traces } = await checkInvariants(state!, exp);
      // A restart loses no provenance: no effect ran without its entry.
      expect(
        unrecorded(load, traces).map((a) => [a.call.id, a.kind === 'error' ? a.message : a.status]),
      ).toEqual([]);
    },
    STEP_MS,
  );

  it(
    'runs down (volumes kept) while calls keep arriving: every call the gateway took is answered and committed, every other one is refused untouched',
    async () => {
      const before = await state!.checkLog();
      await state!.close();
      state = undefined;
      let stopped = false;
      let downAt = 0;
      const trickle = world.trickle('d', EPISODES, () => stopped);
      await new Promise((r) => setTimeout(r, 2_000));
      await timed('down under load', async () => {
        downAt = Date.now();
        await dc(['down']);
      });
      stopped = true;
      const load = await trickle;
      answers.push(...load);
      await world.closeAll();
      expect(await containersOf(project)).toEqual([]);
      const refused = load.filter(isRefused);
      console.log(
        `deploy: down under load: ${load.filter((a) => a.kind === 'result').length} results, ${load.filter((a) => a.kind === 'error' && !isRefused(a)).length} errors, ${refused.length} refused`,
      );
      expect(load.filter((a) => a.sentAt < downAt && a.kind === 'result').length).toBeGreaterThan(
        0,
      );
      expect(
        load.filter(
          (a) =>
            !(
              a.kind === 'result' ||
              isRefused(a) ||
              (a.kind === 'error' && isDocumentedError(a.code, a.message))
            ),
        ),
      ).toEqual([]);

      // Read what the stack kept, from a second `up`.
      await timed('up again and healthy', async () => {
        await dc(['up', '-d', '--no-build', '--scale', 'broker=3', '--scale', 'planner=2']);
        return healthy(9);
      });
      await connectState();
      exp.broker = (await containersOf(project)).find((c) => c.service === 'broker')!.id;
      const { entries, traces } = await checkInvariants(state!, exp);
      expect(entries.slice(0, before.length)).toEqual(before);
      // A refused call was never taken: no claim, no intent.
      expect(
        refused
          .map((a) => ({ id: a.call.id, ...traces.get(invocationOf(a.call))! }))
          .filter((t) => t.state !== null || t.intents.length > 0),
      ).toEqual([]);
      // What the gateway took before it stopped, it finished: no effect without its entry.
      expect(unrecorded(load, traces).map((a) => a.call.id)).toEqual([]);
    },
    STEP_MS,
  );

  it(
    'after up again, the log, spend and worktrees are kept and the log continues',
    async () => {
      const before = await state!.checkLog();
      const load = await timed('load after up', () =>
        world.drive(planCalls('u', EPISODES, PER_EPISODE.again)),
      );
      answers.push(...load);
      expect(load.map((a) => a.kind)).toEqual(load.map(() => 'result'));
      await expectEveryBrokerServed(load);
      const { entries } = await checkInvariants(state!, exp);
      // The log continues from the head it had before `down`.
      expect(entries.slice(0, before.length)).toEqual(before);
      expect(entries.length).toBe(before.length + load.length);
      expect(answers.length).toBeGreaterThanOrEqual(300);
    },
    STEP_MS,
  );
});
