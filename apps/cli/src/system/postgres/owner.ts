import { spawnSync } from 'node:child_process';
import { userInfo } from 'node:os';
import { dirname } from 'node:path';
import { CliError } from '../../commands/util.js';

/**
 * The unprivileged user that owns World's PostgreSQL cluster when World runs as root:
 * PostgreSQL refuses to run as root (initdb and postgres exit), so the cluster gets a system
 * user of its own, created on first need (`useradd --system`), never a person's account.
 */
const CLUSTER_USER = 'world-postgres';

/** Who the cluster's processes run as: the current user, or CLUSTER_USER under root. */
export interface ClusterOwner {
  /** the OS user name */
  name: string;
  /** set when World runs as root: the ids the server's processes switch to */
  uid?: number;
  gid?: number;
}

/**
 * The cluster's owner for this process. Under root, creates CLUSTER_USER when missing and checks
 * that it can reach `pgdataParent` (every directory above it must let others traverse it).
 * @param pgdataParent the directory that holds the cluster (WORLD_HOME)
 * @throws CliError (exit 2) with the reason when the user cannot be created or cannot reach
 *   WORLD_HOME
 */
export function clusterOwner(pgdataParent: string): ClusterOwner {
  const me = userInfo();
  if (me.uid !== 0) return { name: me.username };
  let ids = lookup(CLUSTER_USER);
  if (ids === undefined) {
    const made = spawnSync(
      'useradd',
      [
        '--system',
        '--user-group',
        '--no-create-home',
        '--home-dir',
        '/nonexistent',
        '--shell',
        '/usr/sbin/nologin',
        CLUSTER_USER,
      ],
      { encoding: 'utf8' },
    );
    ids = lookup(CLUSTER_USER);
    if (ids === undefined) {
      const why = made.error?.message ?? (made.stderr.trim() || `useradd exited ${made.status}`);
      throw new CliError(
        `running as root, PostgreSQL needs an unprivileged user and user ${CLUSTER_USER} could not be created (${why}); create it or run World as another user`,
        2,
      );
    }
  }
  const blocked = firstUnreachable(pgdataParent, ids);
  if (blocked !== undefined) {
    throw new CliError(
      `running as root, the PostgreSQL cluster is owned by user ${CLUSTER_USER}, which cannot reach ${blocked} (no search permission for others); choose a WORLD_HOME under directories others may traverse, or run World as another user`,
      2,
    );
  }
  return { name: CLUSTER_USER, ...ids };
}

/** uid and gid of a user, or undefined when it does not exist. */
function lookup(name: string): { uid: number; gid: number } | undefined {
  const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) return undefined;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/**
 * The first directory from `dir` up to `/` that the user cannot search (`test -x` run as the
 * user, so ACLs and group membership count), or undefined when all can be searched.
 */
function firstUnreachable(dir: string, ids: { uid: number; gid: number }): string | undefined {
  const chain: string[] = [];
  for (let d = dir; ; d = dirname(d)) {
    chain.unshift(d);
    if (dirname(d) === d) break;
  }
  for (const d of chain) {
    const probe = spawnSync('test', ['-x', d], { ...ids });
    if (probe.status !== 0) return d;
  }
  return undefined;
}
