import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { credentialIdOf, HEX64, NotFoundError, type Grant } from '@world/contracts';
import type { RpcClient } from '@world/runtime';
import type { WorldPaths } from './paths.js';

/** The demo episode `pnpm start` creates (README "Quick start"). */
const DEMO_EPISODE = 'demo';
/** Budget of each demo grant, in calls. */
const DEMO_BUDGET = 500;
/** The demo session lives a week; `pnpm start` mints a new one when it has expired. */
const DEMO_TTL_SECONDS = 7 * 24 * 3600;
/** One grant per served tool's effect (world-spec §2.7: six grants cover the eight tools). */
const DEMO_EFFECTS = [
  'Workspace.Read',
  'Workspace.Write',
  'Ailang.Check',
  'Ailang.Run',
  'Ailang.Discover',
  'Ailang.CLI',
] as const;
/**
 * The sample worktree copied into the demo episode (apps/cli/demo).
 * @internal exported for ailang-tools.e2e-spec.ts
 */
export const DEMO_TEMPLATE = fileURLToPath(new URL('../../demo', import.meta.url));

const TIMEOUT = { timeoutMs: 10_000 };

/** What the demo bootstrap prints. */
export interface DemoSession {
  episodeId: string;
  worktree: string;
  sessionFile: string;
  /** true when an existing live session file was kept */
  reused: boolean;
}

/**
 * Creates the demo episode (from the sample worktree) when absent, and keeps or mints its session:
 * a live session in the session file is kept (its budget is the episode's, so nothing resets);
 * otherwise a new one is minted with one grant per served effect and written once, mode 0600.
 */
export async function bootstrapDemo(rpc: RpcClient, paths: WorldPaths): Promise<DemoSession> {
  let worktree: string;
  try {
    worktree = (await rpc.request('broker.episode.get', { episodeId: DEMO_EPISODE }, TIMEOUT))
      .worktree;
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    worktree = (
      await rpc.request(
        'broker.episode.create',
        { episodeId: DEMO_EPISODE, source: { kind: 'copy', dir: DEMO_TEMPLATE } },
        TIMEOUT,
      )
    ).worktree;
  }
  const existing = await readFile(paths.demoSessionFile, 'utf8').catch(() => '');
  const token = existing.trim();
  if (HEX64.test(token)) {
    const resolved = await rpc.request(
      'broker.session.resolve',
      { credentialId: credentialIdOf(token) },
      TIMEOUT,
    );
    if (resolved.status === 'ok')
      return {
        episodeId: DEMO_EPISODE,
        worktree,
        sessionFile: paths.demoSessionFile,
        reused: true,
      };
  }
  const grants: Grant[] = DEMO_EFFECTS.map((effect) => ({
    effect,
    scope: 'worktree',
    budget: DEMO_BUDGET,
  }));
  const minted = await rpc.request(
    'broker.session.mint',
    { episodeId: DEMO_EPISODE, grants, ttlSeconds: DEMO_TTL_SECONDS },
    TIMEOUT,
  );
  await mkdir(dirname(paths.demoSessionFile), { recursive: true, mode: 0o700 });
  await writeFile(paths.demoSessionFile, `${minted.token}\n`, { mode: 0o600 });
  await chmod(paths.demoSessionFile, 0o600);
  return { episodeId: DEMO_EPISODE, worktree, sessionFile: paths.demoSessionFile, reused: false };
}
