import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startNode, testNatsUrl } from '@world/testing';

// DESIGN.md §5 and packages/runtime/README.md "Configuration": every service process validates its
// configuration at start — WORLD_HEALTH_PORT included — and a bad value is one clear line and exit
// code 2.

const dist = (app: string) =>
  fileURLToPath(new URL(`../../../${app}/dist/main.js`, import.meta.url));
const SERVICES = ['ledger', 'broker', 'planner', 'gateway'] as const;
const BASE_ENV = {
  NATS_URL: testNatsUrl(),
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/unused',
  WORLD_HEALTH_HOST: undefined,
};

describe('configuration of the service processes', () => {
  beforeAll(() => {
    for (const service of SERVICES) {
      if (!existsSync(dist(service)))
        throw new Error(
          `${dist(service)} is missing: build first (pnpm exec turbo run build --filter=@world/planner...)`,
        );
    }
  });

  it.each(
    SERVICES.map((service) => [
      service,
      `${service}: invalid configuration: WORLD_HEALTH_PORT: WORLD_HEALTH_PORT must be a TCP port number (0-65535)`,
    ]),
  )('%s with WORLD_HEALTH_PORT=nine exits 2 with one line', async (service, line) => {
    const proc = startNode(dist(service), [], { ...BASE_ENV, WORLD_HEALTH_PORT: 'nine' });
    expect(await proc.exited).toEqual({ code: 2, signal: null });
    expect(proc.lines).toEqual([line]);
  });
});
