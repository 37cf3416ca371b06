import { CommonEnv, ConfigError, isLogLevel, loadConfig, LOG_LEVELS } from './config.js';

// DESIGN.md §5: configuration is validated at start, one clear line, exit 2.
describe('CommonEnv health settings', () => {
  it.each([
    ['unset: no health server', {}, undefined, '0.0.0.0'],
    ['empty: no health server', { WORLD_HEALTH_PORT: '' }, undefined, '0.0.0.0'],
    ['0: any free port', { WORLD_HEALTH_PORT: '0' }, 0, '0.0.0.0'],
    [
      'a port and a host',
      { WORLD_HEALTH_PORT: '9464', WORLD_HEALTH_HOST: '127.0.0.1' },
      9464,
      '127.0.0.1',
    ],
  ])('accepts %s', (_name, env, port, host) => {
    const config = loadConfig('svc', CommonEnv, env);
    expect(config.WORLD_HEALTH_PORT).toBe(port);
    expect(config.WORLD_HEALTH_HOST).toBe(host);
  });

  it.each([
    ['a word', { WORLD_HEALTH_PORT: 'nine' }],
    ['a negative port', { WORLD_HEALTH_PORT: '-1' }],
    ['a port past 65535', { WORLD_HEALTH_PORT: '65536' }],
    ['a fraction', { WORLD_HEALTH_PORT: '80.5' }],
  ])('refuses %s with one line naming WORLD_HEALTH_PORT', (_name, env) => {
    expect(() => loadConfig('svc', CommonEnv, env)).toThrow(ConfigError);
    expect(() => loadConfig('svc', CommonEnv, env)).toThrow(
      'svc: invalid configuration: WORLD_HEALTH_PORT: WORLD_HEALTH_PORT must be a TCP port number (0-65535)',
    );
  });

  it('refuses an empty WORLD_HEALTH_HOST', () => {
    expect(() => loadConfig('svc', CommonEnv, { WORLD_HEALTH_HOST: '' })).toThrow(
      'svc: invalid configuration: WORLD_HEALTH_HOST: WORLD_HEALTH_HOST must be a host name or address',
    );
  });
});

describe('CommonEnv WORLD_LOG_LEVEL', () => {
  it.each([
    ['unset', {}, undefined],
    ['empty: unset', { WORLD_LOG_LEVEL: '' }, undefined],
    ['debug', { WORLD_LOG_LEVEL: 'debug' }, 'debug'],
    ['silent', { WORLD_LOG_LEVEL: 'silent' }, 'silent'],
  ])('accepts %s', (_name, env, level) => {
    expect(loadConfig('svc', CommonEnv, env).WORLD_LOG_LEVEL).toBe(level);
  });

  it.each([
    ['a word that is no level', 'bogus'],
    ['a level in capitals', 'INFO'],
    ['a number', '30'],
  ])('refuses %s with one line listing the levels', (_name, value) => {
    expect(() => loadConfig('broker', CommonEnv, { WORLD_LOG_LEVEL: value })).toThrow(
      new ConfigError(
        'broker: invalid configuration: WORLD_LOG_LEVEL: WORLD_LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent',
      ),
    );
  });

  it('knows exactly the levels pino has, and silent', () => {
    expect(LOG_LEVELS).toEqual(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']);
    expect([isLogLevel('warn'), isLogLevel('bogus'), isLogLevel(undefined)]).toEqual([
      true,
      false,
      false,
    ]);
  });
});
