/**
 * The operator verbs (world-spec §7.4): `episode create`, `session mint`, `session
 * revoke`, `session list`. They drive the gateway's operator routes with the operator credential.
 * A minted token is printed once, or written once to a new file at mode 0600; nothing else ever
 * prints a token.
 */
import { existsSync, statSync } from 'node:fs';
import { chmod, open, unlink, type FileHandle } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  BadRequestError,
  EPISODE_ID,
  EPISODE_ID_RULE,
  HEX64,
  parseGrant,
  type Grant,
} from '@world/contracts';
import { gatewayUrl, operatorToken } from './client/credentials.js';
import { isoTime } from './client/format.js';
import { GatewayClient } from './client/http.js';
import { CliError } from './util.js';

/** Where a verb writes: stdout and stderr lines (tests and main pass the process streams). */
export interface Output {
  out(line: string): void;
  err(line: string): void;
}

/** A warning line on stderr: `world: warning: <message>`. */
export function warner(io: Output): (message: string) => void {
  return (message) => io.err(`world: warning: ${message}`);
}

/** The process streams. */
export const STDIO: Output = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** A session as the operator routes list it. */
interface SessionRow {
  credentialId: string;
  episodeId: string;
  grants: Array<Grant & { expiresAt: number }>;
  createdAt: number;
  expiresAt: number;
  revokedAt: number | null;
  live: boolean;
}

async function operatorClient(env: NodeJS.ProcessEnv): Promise<GatewayClient> {
  return new GatewayClient(gatewayUrl(env), await operatorToken(env));
}

/**
 * Checks an episode id (world-spec §10).
 * @throws CliError (exit 2) naming the grammar
 * @internal exported for operator.spec.ts
 */
export function checkEpisodeId(id: string): string {
  if (!EPISODE_ID.test(id)) throw new CliError(`episode id "${id}" ${EPISODE_ID_RULE}`, 2);
  return id;
}

/**
 * `world episode create <ep> [--from DIR | --git REPO [--ref REF]]`: creates the episode and its
 * worktree ($WORLD_WORKSPACE_ROOT/<ep>): empty, a copy of DIR's files, or a git worktree of REPO.
 * @throws CliError exit 2 for a bad id, both sources, --ref without --git, or a missing DIR;
 *   GatewayHttpError for a refusal
 */
export async function episodeCreate(
  episodeId: string,
  options: { from?: string; git?: string; ref?: string },
  env: NodeJS.ProcessEnv,
  io: Output,
): Promise<void> {
  checkEpisodeId(episodeId);
  if (options.from !== undefined && options.git !== undefined)
    throw new CliError('give at most one of --from and --git', 2);
  if (options.ref !== undefined && options.git === undefined)
    throw new CliError('--ref needs --git', 2);
  const body: Record<string, string> = { episodeId };
  if (options.from !== undefined) {
    const dir = resolve(options.from);
    if (!existsSync(dir) || !statSync(dir).isDirectory())
      throw new CliError(`--from ${options.from}: not a directory`, 2);
    body.from = dir;
  }
  if (options.git !== undefined) {
    // A local repository is named by its absolute path: the broker resolves it, not this shell.
    body.git = existsSync(options.git) ? resolve(options.git) : options.git;
    if (options.ref !== undefined) body.ref = options.ref;
  }
  const client = await operatorClient(env);
  const reply = await client.json<{ episodeId: string; worktree: string; created?: boolean }>(
    'POST',
    '/v1/operator/episodes',
    body,
  );
  io.out(
    reply.created === false
      ? `episode ${reply.episodeId} already exists (worktree ${reply.worktree})`
      : `created episode ${reply.episodeId} (worktree ${reply.worktree})`,
  );
}

/**
 * Parses the repeated `--grant EFFECT=SCOPE:BUDGET` values (world-spec §7.6).
 * @throws CliError (exit 2) naming the bad grant, or when there is none
 * @internal exported for operator.spec.ts
 */
export function parseGrants(texts: string[]): Grant[] {
  if (texts.length === 0) throw new CliError('give at least one --grant EFFECT=SCOPE:BUDGET', 2);
  return texts.map((text) => {
    try {
      return parseGrant(text);
    } catch (err) {
      if (err instanceof BadRequestError) throw new CliError(err.message, 2);
      throw err;
    }
  });
}

/**
 * Parses `--ttl SECONDS`: a whole positive number of seconds (world-spec §7.4).
 * @throws CliError (exit 2)
 * @internal exported for operator.spec.ts
 */
export function parseTtl(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[1-9][0-9]*$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new CliError(`--ttl "${text}" must be a whole positive number of seconds`, 2);
  }
  return Number(text);
}

/**
 * `world session mint --episode <ep> --grant G… [--ttl S] [--out FILE]` (world-spec §7.4): without
 * --out the token is printed once on stdout; with --out it is written once to FILE, which must
 * not exist yet, at mode 0600. The credential id (never the token) goes to stderr.
 * @throws CliError exit 2 for bad input, exit 1 when FILE exists; GatewayHttpError for a refusal
 */
export async function sessionMint(
  options: { episode: string; grant: string[]; ttl?: string; out?: string },
  env: NodeJS.ProcessEnv,
  io: Output,
): Promise<void> {
  checkEpisodeId(options.episode);
  const grants = parseGrants(options.grant);
  const ttlSeconds = parseTtl(options.ttl);
  const client = await operatorClient(env);
  let file: FileHandle | undefined;
  if (options.out !== undefined) {
    try {
      // Exclusive create: a session file is written once, never overwritten.
      file = await open(options.out, 'wx', 0o600);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST')
        throw new CliError(
          `--out ${options.out} exists; a session file is written once (remove it or choose another path)`,
        );
      throw new CliError(`--out ${options.out}: ${(err as Error).message}`);
    }
  }
  let minted: {
    token: string;
    credentialId: string;
    episodeId: string;
    grants: Grant[];
    expiresAt: number;
  };
  try {
    minted = await client.json('POST', '/v1/operator/sessions', {
      episodeId: options.episode,
      grants: options.grant,
      ...(ttlSeconds === undefined ? {} : { ttlSeconds }),
    });
  } catch (err) {
    if (file !== undefined) {
      await file.close();
      await unlink(options.out!).catch(() => undefined);
    }
    throw err;
  }
  const summary = `minted session credential for episode ${minted.episodeId}: ${grants.length} grant(s), expires ${isoTime(minted.expiresAt)}`;
  if (file !== undefined) {
    try {
      await file.writeFile(`${minted.token}\n`);
    } finally {
      await file.close();
    }
    await chmod(options.out!, 0o600);
    io.out(`${summary}, written to ${options.out}`);
  } else {
    io.out(minted.token);
    io.err(summary);
  }
  io.err(`credential_id=${minted.credentialId}`);
}

/**
 * `world session revoke <credential-id>`: the next request with that session is refused
 * (world-spec §7.4). Revoking a revoked session again says `revoked` again (exit 0); an id the
 * broker does not know (the operator route answers `revoked: false`) is an error: `no session
 * credential <id>; nothing to revoke …` on stderr, exit 1.
 * @throws CliError exit 2 for an id that is not 64 hex; exit 1 for an unknown id;
 *   GatewayHttpError for a refusal
 */
export async function sessionRevoke(
  credentialId: string,
  env: NodeJS.ProcessEnv,
  io: Output,
): Promise<void> {
  if (!HEX64.test(credentialId))
    throw new CliError(
      `credential id "${credentialId}" must be 64 lowercase hex (see \`world session list\`)`,
      2,
    );
  const client = await operatorClient(env);
  const reply = await client.json<{ revoked: boolean }>(
    'DELETE',
    `/v1/operator/sessions/${credentialId}`,
  );
  if (!reply.revoked)
    throw new CliError(
      `no session credential ${credentialId}; nothing to revoke (see \`world session list\`)`,
    );
  io.out(`revoked session credential ${credentialId}`);
}

/** The state word of a listed session. */
function stateOf(row: SessionRow): string {
  if (row.revokedAt !== null) return 'revoked';
  return row.live ? 'live' : 'expired';
}

/**
 * `world session list [--episode EP] [--json]` (world-spec §7.4 newer): one line per session —
 * credential id, episode, state, expiry, grants — then `N session(s)`; --json prints the rows.
 * @throws CliError exit 2 for a bad episode id; GatewayHttpError for a refusal
 */
export async function sessionList(
  options: { episode?: string; json?: boolean },
  env: NodeJS.ProcessEnv,
  io: Output,
): Promise<void> {
  if (options.episode !== undefined) checkEpisodeId(options.episode);
  const client = await operatorClient(env);
  const query = options.episode === undefined ? '' : `?episode=${options.episode}`;
  const reply = await client.get<{ items: SessionRow[] }>(`/v1/operator/sessions${query}`);
  if (options.json) {
    io.out(JSON.stringify(reply.items, null, 2));
    return;
  }
  for (const row of reply.items) {
    const grants = row.grants.map((g) => `${g.effect}=${g.scope}:${g.budget}`).join(',');
    io.out(
      `${row.credentialId}  ${row.episodeId}  ${stateOf(row)}  expires ${isoTime(row.expiresAt)}  ${grants}`,
    );
  }
  io.out(`${reply.items.length} session(s)`);
}
