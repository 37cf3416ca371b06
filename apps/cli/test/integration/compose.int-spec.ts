/**
 * The deployment files (DESIGN.md §1, §5): docker-compose.yml, the
 * Dockerfile and its helper scripts, without a Docker engine: the compose file is parsed and
 * checked against what each service's own configuration schema requires, and the scripts the
 * image runs (entrypoint, healthcheck, secret maker) are run for real. The deployment test
 * (test/deploy/compose.deploy-spec.ts, `pnpm test:deploy`) builds and runs them on an engine.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, copyFile, writeFile, chmod } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { NATS_MAX_PAYLOAD_BYTES } from '@world/contracts';
import { BrokerEnv } from '@world/broker';
import { loadGatewayConfig } from '@world/gateway';
import { LedgerEnv } from '@world/ledger';
import { ConfigError, loadConfig } from '@world/runtime';
import { freePort } from '@world/testing';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const INFRA = join(ROOT, 'infra');

/** The planner's own config loader (apps/planner/dist/config.js, the module its main.ts uses; the package does not export it). */
type PlannerConfigLoader = (env: NodeJS.ProcessEnv) => {
  NATS_URL: string;
  WORLD_CALL_DEADLINE_MS: number;
};
let plannerConfig: PlannerConfigLoader;

type Env = Record<string, string>;
interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string; network?: string; args?: Env };
  command?: string[];
  environment?: Env;
  secrets?: string[];
  volumes?: string[];
  ports?: string[];
  healthcheck?: { test: string[]; interval?: string; timeout?: string; retries?: number };
  depends_on?: Record<string, { condition: string }>;
  container_name?: string;
  hostname?: string;
  restart?: string;
}
interface ComposeFile {
  services: Record<string, ComposeService>;
  secrets: Record<string, { file?: string; environment?: string }>;
  volumes: Record<string, unknown>;
}

/** Compose's `${VAR:-default}` / `${VAR}` interpolation against an empty shell environment. */
function interpolate(value: string, shell: Env = {}): string {
  return value.replace(
    /\$\{([A-Z0-9_]+)(?::-([^}]*))?\}/g,
    (_, name: string, fallback?: string) => shell[name] || (fallback ?? ''),
  );
}

/** The ENV defaults of the Dockerfile's runtime stage (`ENV A=x \ B=y`). */
function dockerfileEnv(dockerfile: string): Env {
  const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  const block = /\nENV ((?:[^\n]*\\\n)*[^\n]*)/.exec(runtime)![1]!;
  const env: Env = {};
  for (const m of block.matchAll(/([A-Z_]+)=(\S+)/g)) env[m[1]!] = m[2]!;
  return env;
}

/** Runs a command; resolves with its exit code and output. */
function run(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString('utf8')));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const SCALABLE = ['ledger', 'broker', 'planner'] as const;
const APPS = ['ledger', 'broker', 'planner', 'gateway'] as const;

describe('docker-compose.yml', () => {
  let compose: ComposeFile;
  let dockerfile: string;
  /** What the entrypoint exports from DATABASE_URL_FILE: the URL make-secrets.sh writes. */
  const secretValues: Env = {
    '/run/secrets/database_url': 'postgres://world:0123abcd@postgres:5432/world',
    '/run/secrets/operator_token': 'ab'.repeat(32),
  };

  /** A service's environment inside its container: image ENV, compose env, then the entrypoint. */
  const containerEnv = (name: string): Env => {
    const env: Env = { ...dockerfileEnv(dockerfile) };
    for (const [k, v] of Object.entries(compose.services[name]!.environment ?? {}))
      env[k] = interpolate(String(v));
    if (env.DATABASE_URL_FILE !== undefined) {
      env.DATABASE_URL = secretValues[env.DATABASE_URL_FILE]!;
      delete env.DATABASE_URL_FILE;
    }
    return env;
  };

  beforeAll(async () => {
    const plannerModule = join(ROOT, 'apps/planner/dist/config.js');
    plannerConfig = ((await import(plannerModule)) as { plannerConfig: PlannerConfigLoader })
      .plannerConfig;
    compose = parse(await readFile(join(ROOT, 'docker-compose.yml'), 'utf8'), {
      merge: true,
    }) as ComposeFile;
    dockerfile = await readFile(join(INFRA, 'Dockerfile'), 'utf8');
  });

  it('runs NATS, PostgreSQL and the four World services; Jaeger only under the otel profile', () => {
    const profiled = (name: string) =>
      (compose.services[name] as { profiles?: string[] }).profiles ?? [];
    const names = Object.keys(compose.services).sort();
    expect(names.filter((n) => profiled(n).length === 0)).toEqual([
      'broker',
      'gateway',
      'ledger',
      'nats',
      'planner',
      'postgres',
    ]);
    expect(names.filter((n) => profiled(n).length > 0).map((n) => [n, profiled(n)])).toEqual([
      ['jaeger', ['otel']],
    ]);
  });

  it('runs NATS with JetStream, a healthcheck and the config file raising max_payload to 8 MiB', async () => {
    const nats = compose.services.nats!;
    expect(interpolate(nats.image!)).toMatch(/^nats:2\.\d+-alpine$/);
    expect(interpolate(nats.image!, { WORLD_NATS_IMAGE: 'mirror/nats:2' })).toBe('mirror/nats:2');
    expect(nats.command).toEqual([
      '-c',
      '/etc/nats/nats.conf',
      '-js',
      '-sd',
      '/data',
      '-m',
      '8222',
    ]);
    expect(nats.volumes).toEqual([
      './infra/nats/nats.conf:/etc/nats/nats.conf:ro',
      'nats-data:/data',
    ]);
    expect(nats.healthcheck?.test).toEqual([
      'CMD',
      'wget',
      '-q',
      '-O',
      '/dev/null',
      'http://127.0.0.1:8222/healthz?js-enabled-only=true',
    ]);
    const conf = await readFile(join(INFRA, 'nats/nats.conf'), 'utf8');
    expect(/^max_payload: (\d+)$/m.exec(conf)?.[1]).toBe(String(NATS_MAX_PAYLOAD_BYTES));
    expect(NATS_MAX_PAYLOAD_BYTES).toBe(8 * 1024 * 1024);
  });

  it('runs PostgreSQL on a named volume with a healthcheck and its password from a compose secret', () => {
    const pg = compose.services.postgres!;
    expect(interpolate(pg.image!)).toBe('postgres:15-alpine');
    expect(interpolate(pg.image!, { WORLD_POSTGRES_IMAGE: 'mirror/pg:15' })).toBe('mirror/pg:15');
    expect(pg.volumes).toEqual(['pgdata:/var/lib/postgresql/data']);
    expect(compose.volumes).toHaveProperty('pgdata');
    expect(pg.healthcheck?.test).toEqual([
      'CMD-SHELL',
      'pg_isready -h 127.0.0.1 -U world -d world',
    ]);
    expect(pg.environment).toEqual({
      POSTGRES_USER: 'world',
      POSTGRES_DB: 'world',
      POSTGRES_PASSWORD_FILE: '/run/secrets/postgres_password',
    });
    expect(pg.secrets).toEqual(['postgres_password']);
  });

  it.each(APPS)(
    'builds %s from infra/Dockerfile and starts it once NATS and PostgreSQL are healthy, with a healthcheck',
    (name) => {
      const svc = compose.services[name]!;
      expect(svc.build).toEqual({
        context: '.',
        dockerfile: 'infra/Dockerfile',
        network: '${WORLD_BUILD_NETWORK:-default}',
        args: { APP: name, WORLD_NODE_IMAGE: '${WORLD_NODE_IMAGE:-node:20.20-bookworm-slim}' },
      });
      // The compose default base image is the Dockerfile's own default.
      expect(dockerfile).toContain(
        `ARG WORLD_NODE_IMAGE=${interpolate(svc.build!.args!.WORLD_NODE_IMAGE!)}\n`,
      );
      expect(interpolate(svc.build!.network!, { WORLD_BUILD_NETWORK: 'host' })).toBe('host');
      expect(svc.image).toBe(`world-${name}:\${WORLD_IMAGE_TAG:-latest}`);
      expect(svc.depends_on?.nats).toEqual({ condition: 'service_healthy' });
      expect(svc.depends_on?.postgres).toEqual({ condition: 'service_healthy' });
      expect(svc.healthcheck?.test).toEqual([
        'CMD',
        'node',
        '/usr/local/lib/world/healthcheck.mjs',
      ]);
      expect(svc.restart).toBe('unless-stopped');
      expect(containerEnv(name).WORLD_HEALTH_PORT).toBe('9464');
    },
  );

  it.each(SCALABLE)(
    'gives %s no container name, host port, hostname or replica name, so --scale works',
    (name) => {
      const svc = compose.services[name]!;
      expect(svc.container_name).toBeUndefined();
      expect(svc.hostname).toBeUndefined();
      expect(svc.ports).toBeUndefined();
      expect(containerEnv(name).WORLD_REPLICA).toBeUndefined();
    },
  );

  it("publishes the gateway on the host's loopback only unless the operator opts into more, after the services are healthy", () => {
    const gw = compose.services.gateway!;
    expect(gw.container_name).toBeUndefined();
    expect(gw.ports?.map((p) => interpolate(p))).toEqual(['127.0.0.1:7644:7644']);
    expect(gw.ports?.map((p) => interpolate(p, { WORLD_HTTP_PORT: '8080' }))).toEqual([
      '127.0.0.1:8080:7644',
    ]);
    expect(gw.ports?.map((p) => interpolate(p, { WORLD_HTTP_ADDR: '0.0.0.0' }))).toEqual([
      '0.0.0.0:7644:7644',
    ]);
    // Inside its container the gateway leaves loopback by explicit opt-in, so the port mapping works.
    const config = loadGatewayConfig(containerEnv('gateway'));
    expect(config.bind).toEqual({ host: '0.0.0.0', port: 7644 });
    expect(config.operatorTokenFile).toBe('/run/secrets/operator_token');
    expect(gw.secrets).toEqual(['operator_token']);
    for (const dep of ['ledger', 'broker', 'planner'])
      expect(gw.depends_on?.[dep]).toEqual({ condition: 'service_healthy' });
  });

  it('mounts the same named worktree and WORLD_HOME volumes into every broker replica', () => {
    const broker = compose.services.broker!;
    const env = containerEnv('broker');
    expect(env.WORLD_HOME).toBe('/var/lib/world/home');
    expect(env.WORLD_WORKSPACE_ROOT).toBe('/var/lib/world/worktrees');
    // Named volumes (not per-container paths) are what every replica of a scaled service shares.
    expect(broker.volumes).toEqual([
      `world-home:${env.WORLD_HOME}`,
      `worktrees:${env.WORLD_WORKSPACE_ROOT}`,
    ]);
    expect(Object.keys(compose.volumes).sort()).toEqual([
      'nats-data',
      'pgdata',
      'worktrees',
      'world-home',
    ]);
  });

  it('gives each service the environment its configuration schema requires', () => {
    const broker = loadConfig('broker', BrokerEnv, containerEnv('broker'));
    expect([broker.NATS_URL, broker.DATABASE_URL, broker.WORLD_SUBJECT_PREFIX]).toEqual([
      'nats://nats:4222',
      'postgres://world:0123abcd@postgres:5432/world',
      'world',
    ]);
    const ledger = loadConfig('ledger', LedgerEnv, containerEnv('ledger'));
    expect([ledger.NATS_URL, ledger.DATABASE_URL]).toEqual([
      'nats://nats:4222',
      'postgres://world:0123abcd@postgres:5432/world',
    ]);
    const planner = plannerConfig(containerEnv('planner'));
    expect([planner.NATS_URL, planner.WORLD_CALL_DEADLINE_MS]).toEqual([
      'nats://nats:4222',
      20_000,
    ]);
    expect(loadGatewayConfig(containerEnv('gateway')).natsUrl).toBe('nats://nats:4222');
  });

  it.each([
    ['broker', 'DATABASE_URL', (env: Env) => loadConfig('broker', BrokerEnv, env)],
    ['broker', 'NATS_URL', (env: Env) => loadConfig('broker', BrokerEnv, env)],
    ['ledger', 'DATABASE_URL', (env: Env) => loadConfig('ledger', LedgerEnv, env)],
    ['planner', 'NATS_URL', (env: Env) => plannerConfig(env)],
    ['gateway', 'WORLD_BIND_PUBLIC', (env: Env) => loadGatewayConfig(env)],
  ] as const)(
    'refuses to start %s without the %s compose provides (exit 2)',
    (name, variable, load) => {
      const env = containerEnv(name);
      delete env[variable];
      expect(() => load(env)).toThrow(ConfigError);
    },
  );

  it('takes every secret from a file under infra/secrets (ignored by git and by the image build), never from an environment value', async () => {
    expect(compose.secrets).toEqual({
      postgres_password: { file: './infra/secrets/postgres_password' },
      database_url: { file: './infra/secrets/database_url' },
      operator_token: { file: './infra/secrets/operator_token' },
      log_key: { file: './infra/secrets/log_key' },
    });
    // The log's signing key reaches the ledger only, as a secret file: no other service can sign.
    expect(compose.services.ledger!.secrets).toEqual(['database_url', 'log_key']);
    const ledgerConfig = loadConfig('ledger', LedgerEnv, containerEnv('ledger'));
    expect([ledgerConfig.WORLD_LOG_KEY_FILE, ledgerConfig.WORLD_LOG_ORIGIN]).toEqual([
      '/run/secrets/log_key',
      undefined,
    ]);
    for (const svc of Object.values(compose.services)) {
      for (const key of Object.keys(svc.environment ?? {})) {
        expect(key).not.toMatch(/PASSWORD$|TOKEN$|^DATABASE_URL$/);
      }
    }
    expect((await readFile(join(INFRA, '.gitignore'), 'utf8')).split('\n')).toContain('secrets/');
    // The root .dockerignore: the one every builder reads (the classic builder and
    // docker-compose 1.29 ignore infra/Dockerfile.dockerignore), so no builder sees the secrets.
    const ignored = (await readFile(join(ROOT, '.dockerignore'), 'utf8')).split('\n');
    expect(
      ['infra/secrets', '.git', '**/node_modules'].filter((p) => !ignored.includes(p)),
    ).toEqual([]);
    await expect(stat(join(INFRA, 'Dockerfile.dockerignore'))).rejects.toThrow('ENOENT');
  });
});

describe('infra/Dockerfile', () => {
  let dockerfile: string;
  let runtime: string;

  beforeAll(async () => {
    dockerfile = await readFile(join(INFRA, 'Dockerfile'), 'utf8');
    runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  });

  it('builds in a separate stage and deploys only production dependencies', () => {
    expect(dockerfile).toMatch(/^FROM \$\{WORLD_NODE_IMAGE\} AS build$/m);
    expect(dockerfile).toContain('RUN pnpm install --frozen-lockfile --offline');
    expect(dockerfile).toContain('sh infra/deploy-app.sh "${APP}" /out');
    expect(runtime).toMatch(/^FROM \$\{WORLD_NODE_IMAGE\} AS runtime$/m);
    expect(runtime).toContain('COPY --from=build /out /app');
  });

  it('runs as the non-root node user under tini with a healthcheck', () => {
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime).toContain(
      'ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/lib/world/docker-entrypoint.sh"]',
    );
    expect(runtime).toContain('CMD ["node", "dist/main.js"]');
    expect(runtime).toMatch(
      /^HEALTHCHECK .*\\\n\s+CMD \["node", "\/usr\/local\/lib\/world\/healthcheck\.mjs"\]$/m,
    );
  });

  it('bakes no secret into the image: the build CA is a secret mount of the steps that reach the registry', () => {
    expect(dockerfile).not.toMatch(/^(ARG|ENV)\b.*(PASSWORD|TOKEN|DATABASE_URL|CA_CERTS)/m);
    // No `# syntax=` line: building never pulls a frontend image.
    expect(dockerfile).not.toMatch(/^# *syntax=/m);
    const steps = dockerfile.split(/\n(?=[A-Z]+ )/).filter((st) => !st.startsWith('#'));
    const registry = steps.filter((st) => /npm install -g|pnpm fetch|deploy-app\.sh/.test(st));
    expect(registry).toHaveLength(3);
    for (const st of registry)
      expect(st).toMatch(
        /^RUN --mount=type=secret,id=build_ca \\\n\s+if \[ -s \/run\/secrets\/build_ca \]; then export NODE_EXTRA_CA_CERTS=\/run\/secrets\/build_ca; fi/,
      );
    // Only those steps see it; no other instruction names it (no COPY, ENV or ARG of a CA).
    expect(steps.filter((st) => st.includes('build_ca') && !registry.includes(st))).toEqual([]);
    expect(dockerfileEnv(dockerfile)).toEqual({
      NODE_ENV: 'production',
      WORLD_HOME: '/var/lib/world/home',
      WORLD_WORKSPACE_ROOT: '/var/lib/world/worktrees',
      WORLD_HEALTH_PORT: '9464',
    });
  });
});

describe('infra/docker-entrypoint.sh', () => {
  let dir: string;
  const entrypoint = join(INFRA, 'docker-entrypoint.sh');
  const printEnv = [
    '-e',
    'process.stdout.write(JSON.stringify([process.env.DATABASE_URL ?? null, process.env.DATABASE_URL_FILE ?? null]))',
  ];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'world-entrypoint-'));
    await writeFile(join(dir, 'database_url'), 'postgres://world:s3cret@postgres:5432/world\n');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('exports DATABASE_URL from DATABASE_URL_FILE without its trailing newline and execs the command', async () => {
    const out = await run('sh', [entrypoint, process.execPath, ...printEnv], {
      PATH: process.env.PATH,
      DATABASE_URL_FILE: join(dir, 'database_url'),
    });
    expect(out).toEqual({
      code: 0,
      stdout: JSON.stringify(['postgres://world:s3cret@postgres:5432/world', null]),
      stderr: '',
    });
  });

  it('passes DATABASE_URL through when no file is named', async () => {
    const out = await run('sh', [entrypoint, process.execPath, ...printEnv], {
      PATH: process.env.PATH,
      DATABASE_URL: 'postgres://u@h/d',
    });
    expect(out).toEqual({
      code: 0,
      stdout: JSON.stringify(['postgres://u@h/d', null]),
      stderr: '',
    });
  });

  it('exits 2 when both are set or the file cannot be read', async () => {
    const both = await run('sh', [entrypoint, process.execPath, ...printEnv], {
      PATH: process.env.PATH,
      DATABASE_URL: 'postgres://u@h/d',
      DATABASE_URL_FILE: join(dir, 'database_url'),
    });
    expect(both).toEqual({
      code: 2,
      stdout: '',
      stderr: 'entrypoint: DATABASE_URL and DATABASE_URL_FILE are both set; set one\n',
    });
    const missing = await run('sh', [entrypoint, process.execPath, ...printEnv], {
      PATH: process.env.PATH,
      DATABASE_URL_FILE: join(dir, 'absent'),
    });
    expect(missing).toEqual({
      code: 2,
      stdout: '',
      stderr: `entrypoint: DATABASE_URL_FILE ${join(dir, 'absent')} cannot be read\n`,
    });
  });
});

describe('infra/healthcheck.mjs', () => {
  let server: Server;
  let port: number;
  let status = 200;
  const check = (env: NodeJS.ProcessEnv) =>
    run(process.execPath, [join(INFRA, 'healthcheck.mjs')], { PATH: process.env.PATH, ...env });

  beforeAll(async () => {
    server = createServer((req, res) => {
      res.statusCode = req.url === '/readyz' ? status : 404;
      res.end(status === 200 ? '{"status":"ready"}' : '{"status":"not ready"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('exits 0 when /readyz on WORLD_HEALTH_PORT answers 200', async () => {
    status = 200;
    await expect(check({ WORLD_HEALTH_PORT: String(port) })).resolves.toEqual({
      code: 0,
      stdout: '',
      stderr: '',
    });
  });

  it('exits 1 when /readyz answers 503 or nothing listens', async () => {
    status = 503;
    const notReady = await check({ WORLD_HEALTH_PORT: String(port) });
    expect(notReady).toEqual({
      code: 1,
      stdout: '',
      stderr: `healthcheck: http://127.0.0.1:${port}/readyz answered 503 {"status":"not ready"}\n`,
    });
    const closed = await check({ WORLD_HEALTH_PORT: String(await freePort()) });
    expect(closed.code).toBe(1);
    expect(closed.stderr).toMatch(
      /^healthcheck: http:\/\/127\.0\.0\.1:\d+\/readyz: fetch failed\n$/,
    );
  });
});

describe('infra/make-secrets.sh', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'world-secrets-'));
    await copyFile(join(INFRA, 'make-secrets.sh'), join(dir, 'make-secrets.sh'));
    await chmod(join(dir, 'make-secrets.sh'), 0o755);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('creates the four secrets once: a private directory, a URL embedding the password, a 64-hex operator token, a 64-hex log key seed', async () => {
    const first = await run('sh', [join(dir, 'make-secrets.sh')], { PATH: process.env.PATH });
    expect(first.code).toBe(0);
    const read = (name: string) => readFile(join(dir, 'secrets', name), 'utf8');
    const password = await read('postgres_password');
    expect(password).toMatch(/^[0-9a-f]{48}$/);
    expect(await read('database_url')).toBe(`postgres://world:${password}@postgres:5432/world\n`);
    const token = await read('operator_token');
    expect(token).toMatch(/^[0-9a-f]{64}\n$/);
    const logKey = await read('log_key');
    expect(logKey).toMatch(/^[0-9a-f]{64}\n$/);
    expect(logKey).not.toBe(token);
    expect((await stat(join(dir, 'secrets'))).mode & 0o777).toBe(0o700);
    for (const name of ['postgres_password', 'database_url', 'operator_token', 'log_key']) {
      expect((await stat(join(dir, 'secrets', name))).mode & 0o777).toBe(0o444);
    }
    const again = await run('sh', [join(dir, 'make-secrets.sh')], { PATH: process.env.PATH });
    expect(again.code).toBe(0);
    expect([
      await read('postgres_password'),
      await read('operator_token'),
      await read('log_key'),
    ]).toEqual([password, token, logKey]);
  });
});
