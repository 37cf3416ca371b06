import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@world/runtime';
import { startConfig } from './start.js';

const BIND = '127.0.0.1:7644';
const LEVELS = 'trace, debug, info, warn, error, fatal, silent';

// README "Configuration is environment variables, validated at start (a bad value exits with
// code 2)": `world start` checks every option and variable it uses before anything starts.
describe('startConfig (world start: one clear line, exit 2, for a bad value)', () => {
  let examples: string;
  beforeAll(async () => {
    examples = await mkdtemp(join(tmpdir(), 'world-examples-'));
  });
  afterAll(() => rm(examples, { recursive: true, force: true }));

  it('defaults: loopback bind, no public reads, no extra run capabilities', () => {
    expect(startConfig({ bind: BIND, publicReads: false }, {})).toEqual({
      bind: { host: '127.0.0.1', port: 7644 },
      bindPublic: false,
      publicReads: false,
      callDeadlineMs: undefined,
      examplesDir: undefined,
      runAllowCaps: [],
      netAllow: [],
      netAllowHttp: false,
    });
  });

  it("takes the broker's operator settings and the flags' documented values", () => {
    expect(
      startConfig(
        { bind: '0.0.0.0:7700', publicReads: false },
        {
          WORLD_BIND_PUBLIC: '1',
          WORLD_PUBLIC_READS: 'true',
          WORLD_EXAMPLES_DIR: examples,
          WORLD_RUN_ALLOW_CAPS: 'Env,Net',
          WORLD_RUN_NET_ALLOW: '127.0.0.1:8080',
          WORLD_RUN_NET_ALLOW_HTTP: '1',
          WORLD_CALL_DEADLINE_MS: '30000',
          WORLD_LOG_LEVEL: 'warn',
          NATS_URL: '',
        },
      ),
    ).toEqual({
      bind: { host: '0.0.0.0', port: 7700 },
      bindPublic: true,
      publicReads: true,
      callDeadlineMs: 30_000,
      examplesDir: examples,
      runAllowCaps: ['Env', 'Net'],
      netAllow: ['127.0.0.1:8080'],
      netAllowHttp: true,
    });
  });

  it.each([
    ['1', true],
    ['true', true],
    ['0', false],
    ['false', false],
    ['', false],
  ])('WORLD_PUBLIC_READS=%j → %s (--public-reads turns it on regardless)', (value, on) => {
    expect(startConfig({ bind: BIND, publicReads: false }, { WORLD_PUBLIC_READS: value })).toEqual(
      expect.objectContaining({ publicReads: on }),
    );
    expect(startConfig({ bind: BIND, publicReads: true }, { WORLD_PUBLIC_READS: value })).toEqual(
      expect.objectContaining({ publicReads: true }),
    );
  });

  it.each([
    [
      'a bind that is not host:port',
      'garbage',
      {},
      'world start: invalid configuration: WORLD_BIND must be host:port (e.g. 127.0.0.1:7644), got "garbage"',
    ],
    [
      'a bind beyond loopback without WORLD_BIND_PUBLIC=1',
      '0.0.0.0:18801',
      {},
      'world start: bind host "0.0.0.0" is not loopback (set WORLD_BIND_PUBLIC=1 to serve beyond loopback)',
    ],
    [
      'a WORLD_LOG_LEVEL that is no level',
      BIND,
      { WORLD_LOG_LEVEL: 'bogus' },
      `world start: invalid configuration: WORLD_LOG_LEVEL: WORLD_LOG_LEVEL must be one of ${LEVELS}`,
    ],
    [
      'WORLD_PUBLIC_READS=yes',
      BIND,
      { WORLD_PUBLIC_READS: 'yes' },
      'world start: invalid configuration: WORLD_PUBLIC_READS: WORLD_PUBLIC_READS must be 1 or true (on), or 0, false or empty (off)',
    ],
    [
      'an AILANG_BIN that does not exist',
      BIND,
      { AILANG_BIN: '/nonexistent' },
      'world start: invalid configuration: AILANG_BIN: AILANG_BIN must name an executable file: /nonexistent does not exist',
    ],
    [
      'a WORLD_EXAMPLES_DIR that does not exist',
      BIND,
      { WORLD_EXAMPLES_DIR: '/nonexistent/examples' },
      'world start: invalid configuration: WORLD_EXAMPLES_DIR: WORLD_EXAMPLES_DIR must name a directory: /nonexistent/examples does not exist',
    ],
    [
      'an unknown run capability',
      BIND,
      { WORLD_RUN_ALLOW_CAPS: 'Env,Disk' },
      'world start: invalid configuration: WORLD_RUN_ALLOW_CAPS: WORLD_RUN_ALLOW_CAPS must be a comma list of Clock, Declassify, Env, Net',
    ],
    [
      'a Net allow-list entry that is no IP:PORT',
      BIND,
      { WORLD_RUN_NET_ALLOW: 'example.com:80' },
      'world start: invalid configuration: WORLD_RUN_NET_ALLOW: WORLD_RUN_NET_ALLOW must be a comma list of IP:PORT literals',
    ],
    [
      'WORLD_RUN_NET_ALLOW_HTTP=yes',
      BIND,
      { WORLD_RUN_NET_ALLOW_HTTP: 'yes' },
      'world start: invalid configuration: WORLD_RUN_NET_ALLOW_HTTP: WORLD_RUN_NET_ALLOW_HTTP must be 1 or true (on), or 0, false or empty (off)',
    ],
    [
      'a NATS_URL that is no URL',
      BIND,
      { NATS_URL: 'nats' },
      'world start: invalid configuration: NATS_URL: NATS_URL must be a URL such as nats://127.0.0.1:4222',
    ],
  ])('refuses %s', (_name, bind, env, message) => {
    expect(() => startConfig({ bind, publicReads: false }, env)).toThrow(new ConfigError(message));
  });
});
