import { fileURLToPath } from 'node:url';
import { UP_MAX_REPLICAS } from '@world/contracts';
import { CliError } from '../commands/util.js';
import { parseReplicas, parseUpBind, SERVICES } from './up-args.js';
import { replicaEnv, serviceEntry, startUp } from './up.js';

const APPS = fileURLToPath(new URL('../../../', import.meta.url));

describe('parseReplicas (README "Run modes": world up --replicas)', () => {
  it.each([
    ['absent: one of each', undefined, { ledger: 1, broker: 1, planner: 1, gateway: 1 }],
    ['empty: one of each', '', { ledger: 1, broker: 1, planner: 1, gateway: 1 }],
    [
      'the README example',
      'gateway=2,planner=2,broker=3,ledger=2',
      { ledger: 2, broker: 3, planner: 2, gateway: 2 },
    ],
    [
      'unnamed services keep 1, spaces allowed',
      ' broker=3 ',
      { ledger: 1, broker: 3, planner: 1, gateway: 1 },
    ],
    [
      'the largest count',
      `planner=${UP_MAX_REPLICAS}`,
      { ledger: 1, broker: 1, planner: UP_MAX_REPLICAS, gateway: 1 },
    ],
  ])('%s', (_name, text, expected) => {
    expect(parseReplicas(text)).toEqual(expected);
  });

  it.each([
    ['an unknown service', 'cache=2', 'cache=2'],
    ['zero', 'broker=0', 'broker=0'],
    ['past the largest count', 'broker=100', 'broker=100'],
    ['a missing count', 'gateway=2,broker', 'broker'],
    ['a leading zero', 'broker=03', 'broker=03'],
  ])('refuses %s with exit 2 naming the item', (_name, text, item) => {
    let thrown: unknown;
    try {
      parseReplicas(text);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(CliError);
    expect((thrown as CliError).exitCode).toBe(2);
    expect((thrown as CliError).message).toBe(
      `--replicas: "${item}" must be <service>=<1..${UP_MAX_REPLICAS}> with service ledger, broker, planner or gateway`,
    );
  });
});

describe('parseReplicas of a service named twice', () => {
  it.each([
    ['gateway=2,gateway=3', 'gateway'],
    ['broker=1,planner=2,broker=1', 'broker'],
  ])('refuses %s with exit 2 naming the service', (text, service) => {
    let thrown: unknown;
    try {
      parseReplicas(text);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(CliError);
    expect([(thrown as CliError).exitCode, (thrown as CliError).message]).toEqual([
      2,
      `--replicas: ${service} is given more than once ("${text}")`,
    ]);
  });
});

describe('parseUpBind (world-spec §10: default 127.0.0.1:7644)', () => {
  it.each([
    [undefined, { host: '127.0.0.1', port: 7644 }],
    ['0.0.0.0:8080', { host: '0.0.0.0', port: 8080 }],
    ['localhost:7700', { host: 'localhost', port: 7700 }],
    ['localhost:65535', { host: 'localhost', port: 65535 }],
    ['[::1]:7644', { host: '::1', port: 7644 }],
  ])('%s', (text, expected) => {
    expect(parseUpBind(text)).toEqual(expected);
  });

  it.each([
    ['7644'],
    ['host:'],
    [':7644'],
    ['host:port'],
    ['127.0.0.1:0'],
    ['127.0.0.1:65536'],
    ['127.0.0.1:99999'],
  ])('refuses "%s" with exit 2', (text) => {
    expect(() => parseUpBind(text)).toThrow(
      new CliError(`WORLD_BIND "${text}" must be host:port`, 2),
    );
  });
});

describe('replicaEnv', () => {
  const base = {
    NATS_URL: 'nats://127.0.0.1:4222',
    DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/world',
  };

  it.each([
    [
      'names the replica and its database connections',
      base,
      {},
      {
        ...base,
        WORLD_REPLICA: 'broker-2',
        DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/world?application_name=world-broker-2',
      },
    ],
    [
      'keeps an application name the URL already sets',
      { ...base, DATABASE_URL: 'postgres://u@h/d?application_name=mine' },
      {},
      {
        ...base,
        DATABASE_URL: 'postgres://u@h/d?application_name=mine',
        WORLD_REPLICA: 'broker-2',
      },
    ],
    [
      'leaves a malformed URL for the service to refuse',
      { ...base, DATABASE_URL: 'not a url' },
      {},
      { ...base, DATABASE_URL: 'not a url', WORLD_REPLICA: 'broker-2' },
    ],
    [
      'sets the gateway port and the health port',
      { NATS_URL: base.NATS_URL },
      { bind: { host: '127.0.0.1', port: 7645 }, healthPort: 0 },
      {
        NATS_URL: base.NATS_URL,
        WORLD_REPLICA: 'broker-2',
        WORLD_BIND: '127.0.0.1:7645',
        WORLD_HEALTH_PORT: '0',
      },
    ],
  ])('%s', (_name, env, options, expected) => {
    expect(replicaEnv('broker-2', env, options)).toEqual(expected);
  });
});

describe('serviceEntry', () => {
  it.each(SERVICES.map((s) => [s]))(
    'finds dist/main.js of @world/%s at its package root',
    (service) => {
      expect(serviceEntry(service)).toBe(`${APPS}${service}/dist/main.js`);
    },
  );
});

describe('startUp', () => {
  it.each([
    ['NATS_URL', { DATABASE_URL: 'postgres://u@h/d' }],
    ['DATABASE_URL', { NATS_URL: 'nats://127.0.0.1:4222' }],
  ])('refuses to start without %s (exit 2), before starting any process', async (_missing, env) => {
    await expect(startUp({}, env)).rejects.toEqual(
      new CliError(
        'world up: NATS_URL and DATABASE_URL must be set (distributed mode); `world start` runs embedded',
        2,
      ),
    );
  });
});
