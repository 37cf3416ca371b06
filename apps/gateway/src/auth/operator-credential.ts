import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { HEX64, OPERATOR_TOKEN_BYTES } from '@world/contracts';
import { ConfigError } from '@world/runtime';

/** File name of the operator credential under WORLD_HOME. */
export const OPERATOR_TOKEN_FILE_NAME = 'operator.token';
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;
/** What the workbench key is derived for (a new label ends every workbench login). */
const WORKBENCH_KEY_LABEL = 'world/workbench-login/v1';

/**
 * The operator credential: the `world` CLI's key to the operator routes and, like a session,
 * to the reads. Only its sha256 is kept; requests are compared digest to digest in constant time
 * so neither the token nor its length leaks through timing.
 */
export class OperatorCredential {
  private readonly digest: Buffer;
  /**
   * The workbench's sealing key (workbench/access.ts): HMAC-SHA256(token, WORKBENCH_KEY_LABEL)
   * (RFC 2104), the same on every gateway replica configured with this token.
   */
  readonly workbenchKey: Buffer;

  /** @param token 64 lowercase hex */
  constructor(token: string) {
    this.digest = sha256(token);
    this.workbenchKey = createHmac('sha256', token).update(WORKBENCH_KEY_LABEL).digest();
  }

  /** True when `token` is the operator credential. */
  matches(token: string): boolean {
    return timingSafeEqual(sha256(token), this.digest);
  }
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** Where the operator credential comes from, in order of precedence. */
export interface OperatorTokenSource {
  /** WORLD_OPERATOR_TOKEN */
  token?: string;
  /** WORLD_OPERATOR_TOKEN_FILE */
  file?: string;
  /** WORLD_HOME: `<home>/operator.token` is read, or created when absent */
  worldHome: string;
}

/**
 * Resolves the operator credential: the given token, else the given file, else
 * `$WORLD_HOME/operator.token`, created on first start when absent (32 random bytes as hex,
 * mode 0600, parent directory created 0700). Concurrent first starts agree: the file is created
 * exclusively and a loser reads the winner's token.
 * @returns the credential and the file it came from (undefined for an env token)
 * @throws ConfigError when a given token or an existing file is not 64 lowercase hex
 */
export async function loadOperatorCredential(
  source: OperatorTokenSource,
): Promise<{ credential: OperatorCredential; file?: string }> {
  if (source.token !== undefined) {
    if (!HEX64.test(source.token))
      throw new ConfigError('gateway: WORLD_OPERATOR_TOKEN must be 64 lowercase hex');
    return { credential: new OperatorCredential(source.token) };
  }
  if (source.file !== undefined) {
    return {
      credential: new OperatorCredential(await readTokenFile(source.file)),
      file: source.file,
    };
  }
  const file = join(source.worldHome, OPERATOR_TOKEN_FILE_NAME);
  await mkdir(dirname(file), { recursive: true, mode: DIR_MODE });
  const token = randomBytes(OPERATOR_TOKEN_BYTES).toString('hex');
  try {
    await writeFile(file, `${token}\n`, { flag: 'wx', mode: FILE_MODE });
    // The mode given to open() is filtered by the umask; make it exact.
    await chmod(file, FILE_MODE);
    return { credential: new OperatorCredential(token), file };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return { credential: new OperatorCredential(await readTokenFile(file)), file };
  }
}

async function readTokenFile(file: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new ConfigError(
      `gateway: cannot read operator token file ${file}: ${(err as Error).message}`,
    );
  }
  const token = text.trim();
  if (!HEX64.test(token))
    throw new ConfigError(`gateway: operator token file ${file} must hold 64 lowercase hex`);
  return token;
}
