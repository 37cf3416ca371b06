import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliError } from '../util.js';
import { gatewayUrl, operatorToken, readerToken, sessionToken } from './credentials.js';

const TOKEN = 'ab'.repeat(32);
const OTHER = 'cd'.repeat(32);

describe('gatewayUrl (WORLD_URL, default http://127.0.0.1:7644)', () => {
  it.each([
    ['unset', {}, 'http://127.0.0.1:7644'],
    ['set', { WORLD_URL: 'http://127.0.0.1:9000/' }, 'http://127.0.0.1:9000'],
    ['https', { WORLD_URL: 'https://world.example' }, 'https://world.example'],
  ])('%s', (_row, env, url) => expect(gatewayUrl(env)).toBe(url));
  it.each([
    [
      'not a URL',
      'localhost:7644',
      'WORLD_URL "localhost:7644" must be an http:// or https:// URL',
    ],
    [
      'garbage',
      'http//x',
      'WORLD_URL "http//x" is not a URL (expected e.g. http://127.0.0.1:7644)',
    ],
  ])('refuses %s (exit 2)', (_row, url, message) =>
    expect(() => gatewayUrl({ WORLD_URL: url })).toThrow(new CliError(message, 2)),
  );
});

describe('session and operator credentials (world-spec §7.3 session resolution, the operator token)', () => {
  let dir: string;
  let warnings: string[];
  const warn = (m: string) => warnings.push(m);
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'world-cred-'));
    warnings = [];
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('takes a 64-hex --session as the token and warns that argv is visible', async () => {
    expect(await sessionToken(TOKEN, {}, warn)).toBe(TOKEN);
    expect(warnings).toEqual([
      '--session holds the token itself, which other users can read in the process list; prefer a file (mode 0600) or $WORLD_SESSION',
    ]);
  });

  it('takes $WORLD_SESSION when --session is absent, without a warning for a token', async () => {
    expect(await sessionToken(undefined, { WORLD_SESSION: TOKEN }, warn)).toBe(TOKEN);
    expect(warnings).toEqual([]);
  });

  it('reads a session file (mode 0600) silently', async () => {
    const file = join(dir, 's');
    await writeFile(file, `${TOKEN}\n`, { mode: 0o600 });
    expect(await sessionToken(file, { WORLD_SESSION: OTHER }, warn)).toBe(TOKEN);
    expect(warnings).toEqual([]);
  });

  it('warns when a session file is readable by group or other', async () => {
    const file = join(dir, 's');
    await writeFile(file, TOKEN);
    await chmod(file, 0o644);
    expect(await sessionToken(file, {}, warn)).toBe(TOKEN);
    expect(warnings).toEqual([
      `session file ${file} is readable by group or other (mode 0644); chmod 600 it`,
    ]);
  });

  it('refuses a session file over 256 bytes', async () => {
    const file = join(dir, 's');
    await writeFile(file, `${TOKEN}${' '.repeat(200)}`, { mode: 0o600 });
    await expect(sessionToken(file, {}, warn)).rejects.toThrow(
      new CliError(
        `--session: session file ${file} is 264 bytes; a session file holds at most 256`,
      ),
    );
  });

  it('refuses a file that does not hold a token, and a value that is neither', async () => {
    const file = join(dir, 's');
    await writeFile(file, 'not a token', { mode: 0o600 });
    await expect(sessionToken(undefined, { WORLD_SESSION: file }, warn)).rejects.toThrow(
      new CliError(`WORLD_SESSION: session file ${file} does not hold a 64-hex token`),
    );
    await expect(sessionToken('nope', {}, warn)).rejects.toThrow(
      new CliError('--session: "nope" is neither a 64-hex token nor a readable session file'),
    );
  });

  it('gives no session when neither is set', async () =>
    expect(await sessionToken(undefined, {}, warn)).toBeUndefined());

  it('finds the operator credential: variable, then file variable, then $WORLD_HOME/operator.token', async () => {
    const home = join(dir, 'home');
    await writeFile(join(dir, 'op'), `${OTHER}\n`);
    await mkdir(home);
    await writeFile(join(home, 'operator.token'), `${TOKEN}\n`);
    expect(await operatorToken({ WORLD_OPERATOR_TOKEN: OTHER, WORLD_HOME: home })).toBe(OTHER);
    expect(
      await operatorToken({ WORLD_OPERATOR_TOKEN_FILE: join(dir, 'op'), WORLD_HOME: home }),
    ).toBe(OTHER);
    expect(await operatorToken({ WORLD_HOME: home })).toBe(TOKEN);
    await expect(operatorToken({ WORLD_HOME: join(dir, 'none') })).rejects.toThrow(
      new CliError(
        `no operator credential: ${join(dir, 'none', 'operator.token')} is not readable; set WORLD_OPERATOR_TOKEN or WORLD_OPERATOR_TOKEN_FILE, or WORLD_HOME to where World runs`,
      ),
    );
  });

  it('reads /v1 with the session, else the operator credential, else none', async () => {
    await writeFile(join(dir, 'operator.token'), TOKEN);
    expect(await readerToken(undefined, { WORLD_SESSION: OTHER, WORLD_HOME: dir }, warn)).toBe(
      OTHER,
    );
    expect(await readerToken(undefined, { WORLD_HOME: dir }, warn)).toBe(TOKEN);
    expect(await readerToken(undefined, { WORLD_HOME: join(dir, 'none') }, warn)).toBeUndefined();
  });
});
