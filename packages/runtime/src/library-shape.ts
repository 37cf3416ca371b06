import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * A library World reaches past its documented API no longer has the shape World's adapter relies
 * on (an upgrade changed it). Thrown at start-up, before the process serves anything, so an
 * upgrade fails loudly instead of running silently different code.
 * Message: `<library> <installed version>: <what changed>; <adapter> relies on it (written against
 * <version>): check <file> before upgrading`.
 */
export class LibraryShapeError extends Error {
  constructor(
    readonly library: string,
    readonly version: string,
    readonly problem: string,
    adapter: { name: string; file: string; writtenAgainst: string },
  ) {
    super(
      `${library} ${version}: ${problem}; ${adapter.name} relies on it (written against ` +
        `${adapter.writtenAgainst}): check ${adapter.file} before upgrading`,
    );
    this.name = 'LibraryShapeError';
  }
}

/**
 * The version of an installed package as it resolves from a module: the `version` of the first
 * `package.json` named `name` above its entry point, or `unknown` when it does not resolve
 * (the version only goes into a LibraryShapeError's message).
 * @param name the package name (`@nats-io/nats-core`)
 * @param from a file URL or path to resolve from (a module of the package that depends on it)
 */
export function installedVersion(name: string, from: string): string {
  let dir: string;
  try {
    dir = dirname(createRequire(from).resolve(name));
  } catch {
    return 'unknown';
  }
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === name) return pkg.version ?? 'unknown';
    }
    const up = dirname(dir);
    if (up === dir) return 'unknown';
    dir = up;
  }
}

/**
 * The path a package's entry point resolves to from a module, for resolving that package's own
 * dependencies from it (pnpm installs `@nats-io/nats-core` beside `@nats-io/transport-node`, not
 * beside World's packages); undefined when it does not resolve.
 */
export function resolvedEntry(name: string, from: string): string | undefined {
  try {
    return createRequire(from).resolve(name);
  } catch {
    return undefined;
  }
}
