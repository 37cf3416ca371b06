/**
 * Where the client verbs find the gateway and their credentials (world-spec §7.3, §7.5).
 * Tokens are only ever read here and sent as a Bearer header; nothing here prints one.
 */
import { readFile, stat } from 'node:fs/promises';
import { DEFAULT_HTTP_PORT, HEX64, SESSION_FILE_MAX_BYTES } from '@world/contracts';
import { worldPaths } from '../../system/paths.js';
import { CliError } from '../util.js';

/** The gateway the client verbs talk to when WORLD_URL is not set. */
const DEFAULT_WORLD_URL = `http://127.0.0.1:${DEFAULT_HTTP_PORT}`;

/** Permission bits that let group or other read a file. */
const GROUP_OTHER_BITS = 0o077;

/** Prints a warning line on stderr (the caller decides where warnings go). */
export type Warn = (message: string) => void;

/**
 * The gateway's base URL: $WORLD_URL, default http://127.0.0.1:7644 (README "Quick start"), no
 * trailing slash.
 * @throws CliError (exit 2) when WORLD_URL is not an http(s) URL
 */
export function gatewayUrl(env: NodeJS.ProcessEnv = process.env): string {
  const text =
    env.WORLD_URL === undefined || env.WORLD_URL === '' ? DEFAULT_WORLD_URL : env.WORLD_URL;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliError(`WORLD_URL "${text}" is not a URL (expected e.g. ${DEFAULT_WORLD_URL})`, 2);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CliError(`WORLD_URL "${text}" must be an http:// or https:// URL`, 2);
  }
  return url.toString().replace(/\/+$/, '');
}

/**
 * The operator credential: $WORLD_OPERATOR_TOKEN, else the file $WORLD_OPERATOR_TOKEN_FILE, else
 * $WORLD_HOME/operator.token (created by World on its first start, mode 0600).
 * @throws CliError (exit 1) naming where it looked, or when the value is not 64 lowercase hex
 */
export async function operatorToken(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  if (env.WORLD_OPERATOR_TOKEN !== undefined && env.WORLD_OPERATOR_TOKEN !== '') {
    if (!HEX64.test(env.WORLD_OPERATOR_TOKEN))
      throw new CliError('WORLD_OPERATOR_TOKEN must be 64 lowercase hex');
    return env.WORLD_OPERATOR_TOKEN;
  }
  const file = worldPaths(env).operatorTokenFile;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new CliError(
      `no operator credential: ${file} is not readable; set WORLD_OPERATOR_TOKEN or WORLD_OPERATOR_TOKEN_FILE, or WORLD_HOME to where World runs`,
    );
  }
  const token = text.trim();
  if (!HEX64.test(token))
    throw new CliError(`the operator credential in ${file} is not 64 lowercase hex`);
  return token;
}

/**
 * A session credential for the agent verbs: the `--session` value, else $WORLD_SESSION. A value
 * of 64 hex is the token itself (warned when it came from argv: other users can see it in the
 * process list); anything else is a file of at most 256 bytes holding it (warned when group or
 * other may read it). World-spec §7.3 "Session resolution".
 * @returns the token, or undefined when neither is given
 * @throws CliError (exit 1) for an unreadable, oversized or malformed session file
 */
export async function sessionToken(
  option: string | undefined,
  env: NodeJS.ProcessEnv,
  warn: Warn,
): Promise<string | undefined> {
  const fromArgv = option !== undefined && option !== '';
  const value = fromArgv ? option : env.WORLD_SESSION;
  if (value === undefined || value === '') return undefined;
  if (HEX64.test(value)) {
    if (fromArgv)
      warn(
        '--session holds the token itself, which other users can read in the process list; prefer a file (mode 0600) or $WORLD_SESSION',
      );
    return value;
  }
  const source = fromArgv ? '--session' : 'WORLD_SESSION';
  let size: number;
  let mode: number;
  try {
    const info = await stat(value);
    size = info.size;
    mode = info.mode;
  } catch {
    throw new CliError(
      `${source}: "${value}" is neither a 64-hex token nor a readable session file`,
    );
  }
  if (size > SESSION_FILE_MAX_BYTES) {
    throw new CliError(
      `${source}: session file ${value} is ${size} bytes; a session file holds at most ${SESSION_FILE_MAX_BYTES}`,
    );
  }
  const token = (await readFile(value, 'utf8')).trim();
  if (!HEX64.test(token))
    throw new CliError(`${source}: session file ${value} does not hold a 64-hex token`);
  if ((mode & GROUP_OTHER_BITS) !== 0) {
    warn(
      `session file ${value} is readable by group or other (mode ${(mode & 0o777).toString(8).padStart(4, '0')}); chmod 600 it`,
    );
  }
  return token;
}

/**
 * The credential of a `/v1` read (`why`, `log tail`): the session when one is given, else the
 * operator credential when one is found, else none (a gateway with public reads needs none).
 */
export async function readerToken(
  option: string | undefined,
  env: NodeJS.ProcessEnv,
  warn: Warn,
): Promise<string | undefined> {
  const session = await sessionToken(option, env, warn);
  if (session !== undefined) return session;
  try {
    return await operatorToken(env);
  } catch {
    return undefined;
  }
}
