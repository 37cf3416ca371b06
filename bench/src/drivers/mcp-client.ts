/**
 * The agent's view (issue 7): the official MCP TypeScript client (v2, its default 2025-era
 * `initialize` handshake, as agents connect today) over Streamable HTTP, one Client per
 * simulated agent, each calling tools/call one after another.
 */
import { performance } from 'node:perf_hooks';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { FILE_NAME } from '../config.js';
import type { ClientCredential } from '../targets/target.js';
import { toolCallParams, type DriverResult } from './driver.js';

interface Agent {
  client: Client;
  errors: number;
  firstError?: string;
  latencies: number[];
}

/** Connection attempts per client: a refused or reset connect under load is retried once. */
const CONNECT_ATTEMPTS = 2;
/** Clients that connect at once. */
const CONNECT_BATCH = 8;

async function connect(url: string, cred: ClientCredential): Promise<Agent> {
  let last: unknown;
  for (let attempt = 0; attempt < CONNECT_ATTEMPTS; attempt++) {
    const client = new Client({ name: 'world-bench', version: '0.1.0' });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: cred.headers } }),
      );
      // An agent lists the tools once; the client then knows each tool's output schema.
      await client.listTools();
      return { client, errors: 0, latencies: [] };
    } catch (err) {
      last = err;
      await client.close().catch(() => undefined);
    }
  }
  throw last;
}

async function callLoop(agent: Agent, calls: number, record: boolean): Promise<void> {
  for (let i = 0; i < calls; i++) {
    const t0 = performance.now();
    try {
      const result = await agent.client.callTool(toolCallParams(FILE_NAME));
      const ms = performance.now() - t0;
      const ok = (result.structuredContent as { ok?: unknown } | undefined)?.ok === true;
      if (!ok) throw new Error(`result is not ok: ${JSON.stringify(result).slice(0, 300)}`);
      if (record) agent.latencies.push(ms);
    } catch (err) {
      // A failed call is counted (warm-up ones too, in the report's firstError) and the run goes on.
      if (record) agent.errors++;
      agent.firstError ??= `${record ? '' : 'warm-up: '}${(err as Error).message}`;
    }
  }
}

/**
 * Connects one MCP client per credential, runs `warmup` calls spread over them, then measures
 * `calls` calls spread over them (each client calls sequentially, all clients at once).
 * `onMeasure` runs between the two.
 * @throws when a client cannot connect or a warm-up call fails
 */
export async function runMcpClients(
  url: string,
  creds: ClientCredential[],
  warmup: number,
  calls: number,
  onMeasure: () => void = () => undefined,
): Promise<DriverResult> {
  // Clients connect CONNECT_BATCH at a time: 32 simultaneous handshakes on a loaded box reset.
  const agents: Agent[] = [];
  for (let i = 0; i < creds.length; i += CONNECT_BATCH) {
    agents.push(
      ...(await Promise.all(creds.slice(i, i + CONNECT_BATCH).map((c) => connect(url, c)))),
    );
  }
  try {
    const share = (total: number, i: number) =>
      Math.floor(total / agents.length) + (i < total % agents.length ? 1 : 0);
    await Promise.all(agents.map((a, i) => callLoop(a, share(warmup, i), false)));
    onMeasure();
    const t0 = performance.now();
    await Promise.all(agents.map((a, i) => callLoop(a, share(calls, i), true)));
    const wallMs = performance.now() - t0;
    return {
      latenciesMs: agents.flatMap((a) => a.latencies),
      errors: agents.reduce((n, a) => n + a.errors, 0),
      wallMs,
      firstError: agents.find((a) => a.firstError !== undefined)?.firstError,
      completed: agents.reduce((n, a) => n + a.latencies.length + a.errors, 0),
      warmup,
    };
  } finally {
    await Promise.all(agents.map((a) => a.client.close().catch(() => undefined)));
  }
}
