import {
  createTestDatabase,
  freePort,
  testNatsUrl,
  uniquePrefix,
  type TestDatabase,
} from '@world/testing';
import {
  connectRpc,
  openPostgres,
  startHealthServer,
  worldMetrics,
  type DatabaseHandle,
  type HealthServer,
  type RpcClient,
} from '../../src/index.js';

// README "Health, readiness, metrics": /livez answers while the process runs; /readyz is 200 while
// the service's PostgreSQL and NATS connections answer, else 503 naming the failing check; every
// health server serves the process's Prometheus registry at /metrics.

async function get(server: HealthServer, path: string) {
  const res = await fetch(`http://127.0.0.1:${server.port}${path}`);
  return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
}

describe('a health server over real PostgreSQL and NATS', () => {
  let tdb: TestDatabase;
  let database: DatabaseHandle;
  let nats: RpcClient;
  let server: HealthServer;

  beforeAll(async () => {
    tdb = await createTestDatabase('health');
    database = await openPostgres(tdb.url, { max: 2 });
    nats = await connectRpc(
      { kind: 'nats', url: testNatsUrl(), prefix: uniquePrefix('health') },
      'health-test',
    );
    server = await startHealthServer({
      port: 0,
      host: '127.0.0.1',
      checks: { database: () => database.ping(), nats: () => nats.ping() },
    });
  });

  afterAll(async () => {
    await server?.close();
    await nats?.close();
    await database?.close();
    await tdb?.drop();
  });

  it('answers /livez with 200 ok', async () => {
    expect(await get(server, '/livez')).toEqual({
      status: 200,
      type: 'text/plain; charset=utf-8',
      body: 'ok',
    });
  });

  it('answers /readyz with 200 and both checks ok while both connections answer', async () => {
    const res = await get(server, '/readyz');
    expect(res.status).toBe(200);
    expect(res.type).toBe('application/json');
    expect(JSON.parse(res.body)).toEqual({
      status: 'ready',
      checks: { database: 'ok', nats: 'ok' },
    });
  });

  it('serves the process registry at /metrics: default Node metrics and World metric families', async () => {
    worldMetrics().effects.inc({ replica: 'health-test', effect: 'Workspace.Read', status: 'ok' });
    const res = await get(server, '/metrics');
    expect(res.status).toBe(200);
    expect(res.type).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.body).toContain('# TYPE process_cpu_user_seconds_total counter');
    expect(res.body).toContain('# TYPE world_calls_total counter');
    expect(res.body).toContain('# TYPE world_phase_seconds histogram');
    expect(res.body).toContain(
      'world_effects_total{replica="health-test",effect="Workspace.Read",status="ok"} 1',
    );
  });

  it('answers 404 for any other path', async () => {
    expect((await get(server, '/v1/head')).status).toBe(404);
  });

  it('flips /readyz to 503 naming the NATS check once the NATS connection is closed, and /livez stays 200', async () => {
    const closing = await connectRpc(
      { kind: 'nats', url: testNatsUrl(), prefix: uniquePrefix('health') },
      'closing',
    );
    const own = await startHealthServer({
      port: 0,
      host: '127.0.0.1',
      checks: { database: () => database.ping(), nats: () => closing.ping() },
    });
    try {
      expect((await get(own, '/readyz')).status).toBe(200);
      await closing.close();
      const res = await get(own, '/readyz');
      expect(res.status).toBe(503);
      expect(JSON.parse(res.body)).toEqual({
        status: 'unready',
        checks: { database: 'ok', nats: 'failed' },
      });
      expect((await get(own, '/livez')).status).toBe(200);
    } finally {
      await own.close();
    }
  });

  it('flips /readyz to 503 naming the database check once the database handle is closed', async () => {
    const handle = await openPostgres(tdb.url, { max: 1 });
    const own = await startHealthServer({
      port: 0,
      host: '127.0.0.1',
      checks: { database: () => handle.ping(), nats: () => nats.ping() },
    });
    try {
      expect(JSON.parse((await get(own, '/readyz')).body)).toEqual({
        status: 'ready',
        checks: { database: 'ok', nats: 'ok' },
      });
      await handle.close();
      const res = await get(own, '/readyz');
      expect(res.status).toBe(503);
      expect(JSON.parse(res.body)).toEqual({
        status: 'unready',
        checks: { database: 'failed', nats: 'ok' },
      });
    } finally {
      await own.close();
    }
  });

  it('answers 503 for a database URL whose port has nothing listening', async () => {
    const url = new URL(tdb.url);
    url.port = String(await freePort());
    const nowhere = await openPostgres(url.toString(), { max: 1 });
    const own = await startHealthServer({
      port: 0,
      host: '127.0.0.1',
      checks: { database: () => nowhere.ping() },
    });
    try {
      const res = await get(own, '/readyz');
      expect(res.status).toBe(503);
      expect(JSON.parse(res.body)).toEqual({ status: 'unready', checks: { database: 'failed' } });
    } finally {
      await own.close();
      await nowhere.close();
    }
  });

  it('reports draining with 503 once shutdown began, whatever the checks say', async () => {
    const own = await startHealthServer({
      port: 0,
      host: '127.0.0.1',
      checks: { nats: () => nats.ping() },
    });
    try {
      own.drain();
      const res = await get(own, '/readyz');
      expect(res.status).toBe(503);
      expect(JSON.parse(res.body)).toEqual({ status: 'draining', checks: { nats: 'ok' } });
      expect((await get(own, '/livez')).status).toBe(200);
    } finally {
      await own.close();
    }
  });

  it('is ready with no checks when none applies (a service without connections)', async () => {
    const own = await startHealthServer({ port: 0, host: '127.0.0.1', checks: {} });
    try {
      const res = await get(own, '/readyz');
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body)).toEqual({ status: 'ready', checks: {} });
    } finally {
      await own.close();
    }
  });
});
