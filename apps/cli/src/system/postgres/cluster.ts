import { spawn } from 'node:child_process';
import { chown, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError } from '../../commands/util.js';
import type { PostgresBinaries } from './binaries.js';
import type { ClusterOwner } from './owner.js';

/**
 * The file World writes into a cluster it created (after initdb finished): a data directory
 * without it is not World's cluster — from the PGlite era of embedded mode, or half made.
 * @internal exported for cluster.spec.ts
 */
export const CLUSTER_MARKER = 'world-cluster.json';
/** The database role World connects as (initdb's superuser, whatever the OS user). */
export const CLUSTER_ROLE = 'world';

/** What a WORLD_HOME's pgdata holds. */
export type ClusterState = 'absent' | 'world' | 'pglite' | 'foreign';

/**
 * Classifies `pgdata`: absent or empty; a cluster World created (CLUSTER_MARKER); a PGlite
 * database of an earlier World (PostgreSQL files — PG_VERSION — without the marker: PGlite wrote
 * the same layout but never World's marker); anything else.
 */
export async function clusterState(pgdata: string): Promise<ClusterState> {
  let names: string[];
  try {
    names = await readdir(pgdata);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'absent';
    throw err;
  }
  if (names.length === 0) return 'absent';
  if (names.includes(CLUSTER_MARKER)) return 'world';
  if (names.includes('PG_VERSION')) return 'pglite';
  return 'foreign';
}

/**
 * Refuses a pgdata World cannot use, with one line saying what it is and what to do; never
 * re-initialises or overwrites it.
 * @throws CliError (exit 2) for `pglite` and `foreign`
 */
export function assertUsable(state: ClusterState, pgdata: string): void {
  if (state === 'pglite') {
    throw new CliError(
      `${pgdata} holds a PGlite database of an earlier World, which this World cannot open (it runs PostgreSQL 18); move it away or set another WORLD_HOME (nothing was changed)`,
      2,
    );
  }
  if (state === 'foreign') {
    throw new CliError(
      `${pgdata} is not a PostgreSQL cluster World created (no ${CLUSTER_MARKER}); move it away or set another WORLD_HOME (nothing was changed)`,
      2,
    );
  }
}

/**
 * Creates a new cluster at `pgdata` with initdb: superuser CLUSTER_ROLE, trust for local
 * (Unix-socket) connections only — the socket lives in the 0700 data directory, so only the
 * owner and root reach it — UTF8, checksums on. initdb writes into `<pgdata>.init` and the
 * directory is renamed into place with its marker, so a start killed mid-way leaves no
 * half-made pgdata (the `.init` directory is removed by the next try).
 * @throws Error with initdb's output when it fails
 */
export async function initCluster(
  pgdata: string,
  bin: PostgresBinaries,
  owner: ClusterOwner,
): Promise<void> {
  const staging = `${pgdata}.init`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { mode: 0o700 });
  if (owner.uid !== undefined) await chown(staging, owner.uid, owner.gid!);
  const args = [
    `--pgdata=${staging}`,
    `--username=${CLUSTER_ROLE}`,
    '--auth-local=trust',
    '--auth-host=reject',
    '--encoding=UTF8',
    '--locale=C',
    '--data-checksums',
  ];
  const output = await run(bin.initdb, args, owner);
  if (output.code !== 0) {
    throw new Error(`initdb failed (exit ${output.code}): ${output.text.trim().slice(-2000)}`);
  }
  const marker = JSON.stringify({ createdBy: 'world', createdAt: new Date().toISOString() });
  await writeFile(join(staging, CLUSTER_MARKER), `${marker}\n`, { mode: 0o600 });
  if (owner.uid !== undefined) await chown(join(staging, CLUSTER_MARKER), owner.uid, owner.gid!);
  await rm(pgdata, { recursive: true, force: true }); // absent or empty (clusterState)
  await rename(staging, pgdata);
}

/** The pid in a data directory's postmaster.pid (its first line), or undefined. */
export async function postmasterPid(pgdata: string): Promise<number | undefined> {
  try {
    const first = (await readFile(join(pgdata, 'postmaster.pid'), 'utf8')).split('\n')[0];
    const pid = Number(first);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function run(
  file: string,
  args: string[],
  owner: ClusterOwner,
): Promise<{ code: number | null; text: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LC_ALL: 'C' },
      ...(owner.uid !== undefined && { uid: owner.uid, gid: owner.gid }),
    });
    let text = '';
    child.stdout!.on('data', (b: Buffer) => (text += b.toString('utf8')));
    child.stderr!.on('data', (b: Buffer) => (text += b.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, text }));
  });
}
