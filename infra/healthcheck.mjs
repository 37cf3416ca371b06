// Container healthcheck of every World image (HEALTHCHECK in infra/Dockerfile, `healthcheck` in
// docker-compose.yml): exits 0 when the service's readiness endpoint answers 200 — readiness means
// its PostgreSQL and NATS connections work — and 1 otherwise. Every service process serves
// GET /readyz on WORLD_HEALTH_PORT; WORLD_HEALTHCHECK_URL overrides the address.

/** How long one probe may take before it counts as a failure: under the healthcheck's 10 s timeout. */
const PROBE_TIMEOUT_MS = 8_000;
/** The only status that means ready. */
const READY_STATUS = 200;

const port = process.env.WORLD_HEALTH_PORT;
const url = process.env.WORLD_HEALTHCHECK_URL || (port ? `http://127.0.0.1:${port}/readyz` : '');
if (url === '') {
  process.stderr.write('healthcheck: set WORLD_HEALTH_PORT (or WORLD_HEALTHCHECK_URL)\n');
  process.exit(1);
}
try {
  const res = await fetch(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
  const body = await res.text();
  if (res.status !== READY_STATUS)
    process.stderr.write(`healthcheck: ${url} answered ${res.status} ${body}\n`);
  process.exit(res.status === READY_STATUS ? 0 : 1);
} catch (err) {
  process.stderr.write(
    `healthcheck: ${url}: ${err instanceof Error ? err.message : String(err)}\n`,
  );
  process.exit(1);
}
