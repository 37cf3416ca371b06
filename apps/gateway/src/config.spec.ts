import { ConfigError } from '@world/runtime';
import { isLoopbackHost, loadGatewayConfig, parseBind } from './config.js';

describe('isLoopbackHost (world-spec §10: loopback only)', () => {
  const rows: Array<[string, boolean]> = [
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['::1', true],
    ['localhost', true],
    ['0.0.0.0', false],
    ['10.0.0.5', false],
    ['::', false],
    ['example.org', false],
  ];
  it.each(rows)('%s → %s', (host, expected) => expect(isLoopbackHost(host)).toBe(expected));
});

describe('parseBind', () => {
  it('reads host:port', () =>
    expect(parseBind('127.0.0.1:7644')).toEqual({ host: '127.0.0.1', port: 7644 }));
  it('reads a bracketed IPv6 host', () =>
    expect(parseBind('[::1]:80')).toEqual({ host: '::1', port: 80 }));
  it('refuses a missing port', () => {
    expect(() => parseBind('127.0.0.1')).toThrow(
      new ConfigError(
        'gateway: invalid configuration: WORLD_BIND must be host:port (e.g. 127.0.0.1:7644), got "127.0.0.1"',
      ),
    );
  });
  it('refuses a port beyond 65535', () =>
    expect(() => parseBind('localhost:70000')).toThrow(ConfigError));
});

describe('loadGatewayConfig (DESIGN.md §5)', () => {
  const base = { NATS_URL: 'nats://127.0.0.1:4222' };

  it('applies the defaults', () => {
    expect(loadGatewayConfig(base)).toEqual({
      natsUrl: 'nats://127.0.0.1:4222',
      prefix: 'world',
      bind: { host: '127.0.0.1', port: 7644 },
      worldHome: './.world',
      publicReads: false,
      operatorToken: undefined,
      operatorTokenFile: undefined,
      callDeadlineMs: 20000,
      dbPath: '',
      replica: undefined,
    });
  });

  it('refuses a bind beyond loopback (world-spec §11: bind host "0.0.0.0" is not loopback)', () => {
    expect(() => loadGatewayConfig({ ...base, WORLD_BIND: '0.0.0.0:7644' })).toThrow(
      new ConfigError(
        'gateway: bind host "0.0.0.0" is not loopback (set WORLD_BIND_PUBLIC=1 to serve beyond loopback)',
      ),
    );
  });

  it('serves beyond loopback when WORLD_BIND_PUBLIC=1', () => {
    expect(
      loadGatewayConfig({ ...base, WORLD_BIND: '0.0.0.0:7644', WORLD_BIND_PUBLIC: '1' }).bind,
    ).toEqual({ host: '0.0.0.0', port: 7644 });
  });

  it('reads public reads, the operator token and the deadline', () => {
    const config = loadGatewayConfig({
      ...base,
      WORLD_PUBLIC_READS: 'true',
      WORLD_OPERATOR_TOKEN: 'a'.repeat(64),
      WORLD_CALL_DEADLINE_MS: '5000',
    });
    expect([config.publicReads, config.operatorToken, config.callDeadlineMs]).toEqual([
      true,
      'a'.repeat(64),
      5000,
    ]);
  });

  it('refuses a missing NATS_URL', () => {
    expect(() => loadGatewayConfig({})).toThrow(
      new ConfigError(
        'gateway: invalid configuration: NATS_URL: Invalid input: expected string, received undefined',
      ),
    );
  });

  it('refuses an operator token that is not 64 hex', () => {
    expect(() => loadGatewayConfig({ ...base, WORLD_OPERATOR_TOKEN: 'xyz' })).toThrow(
      new ConfigError(
        'gateway: invalid configuration: WORLD_OPERATOR_TOKEN: WORLD_OPERATOR_TOKEN must be 64 lowercase hex',
      ),
    );
  });
});
