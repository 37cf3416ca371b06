import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '@world/runtime';
import { BrokerEnv, pathProblem } from './config.js';

// DESIGN.md §5: a bad value exits 2 with one line, before any service starts; paths the broker
// would otherwise fail on later (a raw ENOENT from stat or realpath) are checked here too.
describe('BrokerEnv paths', () => {
  let dir: string;
  const base = { NATS_URL: 'nats://127.0.0.1:4222', DATABASE_URL: 'postgres://u@h/db' };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'broker-config-'));
    await writeFile(join(dir, 'ailang'), '#!/bin/sh\n', { mode: 0o755 });
    await writeFile(join(dir, 'plain'), 'not a program\n');
    await chmod(join(dir, 'plain'), 0o644);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('accepts an executable AILANG_BIN and an existing WORLD_EXAMPLES_DIR', () => {
    const config = loadConfig('broker', BrokerEnv, {
      ...base,
      AILANG_BIN: join(dir, 'ailang'),
      WORLD_EXAMPLES_DIR: dir,
    });
    expect([config.AILANG_BIN, config.WORLD_EXAMPLES_DIR]).toEqual([join(dir, 'ailang'), dir]);
  });

  it.each([
    [undefined, false],
    ['', false],
    ['0', false],
    ['false', false],
    ['1', true],
    ['true', true],
  ])('reads WORLD_RUN_NET_ALLOW_HTTP=%j as %s', (value, on) => {
    const env = value === undefined ? base : { ...base, WORLD_RUN_NET_ALLOW_HTTP: value };
    expect(loadConfig('broker', BrokerEnv, env).WORLD_RUN_NET_ALLOW_HTTP).toBe(on);
  });

  it.each([
    [
      'WORLD_RUN_NET_ALLOW_HTTP that is no on/off value',
      { WORLD_RUN_NET_ALLOW_HTTP: 'yes' },
      'broker: invalid configuration: WORLD_RUN_NET_ALLOW_HTTP: WORLD_RUN_NET_ALLOW_HTTP must be 1 or true (on), or 0, false or empty (off)',
    ],
    [
      'AILANG_BIN that does not exist',
      { AILANG_BIN: '/nonexistent' },
      'broker: invalid configuration: AILANG_BIN: AILANG_BIN must name an executable file: /nonexistent does not exist',
    ],
    [
      'AILANG_BIN that is a directory',
      { AILANG_BIN: '/' },
      'broker: invalid configuration: AILANG_BIN: AILANG_BIN must name an executable file: / is not a file',
    ],
    [
      'WORLD_EXAMPLES_DIR that does not exist',
      { WORLD_EXAMPLES_DIR: '/nonexistent/examples' },
      'broker: invalid configuration: WORLD_EXAMPLES_DIR: WORLD_EXAMPLES_DIR must name a directory: /nonexistent/examples does not exist',
    ],
    [
      'a bad WORLD_LOG_LEVEL',
      { WORLD_LOG_LEVEL: 'bogus' },
      'broker: invalid configuration: WORLD_LOG_LEVEL: WORLD_LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent',
    ],
  ])('refuses %s with one line', (_name, env, message) => {
    expect(() => loadConfig('broker', BrokerEnv, { ...base, ...env })).toThrow(
      new ConfigError(message),
    );
  });

  it('names each problem of a path', () => {
    expect([
      pathProblem(join(dir, 'ailang'), 'executable'),
      pathProblem(join(dir, 'plain'), 'executable'),
      pathProblem(join(dir, 'ailang'), 'directory'),
      pathProblem(join(dir, 'ailang', 'below'), 'directory'),
    ]).toEqual([undefined, 'is not executable', 'is not a directory', 'does not exist']);
  });
});
