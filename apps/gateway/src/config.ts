import { isIP } from 'node:net';
import { z } from 'zod';
import {
  CALL_DEADLINE_MS,
  DEFAULT_BIND,
  HEX64,
  parseHostPort,
  type HostPort,
} from '@world/contracts';
import { CommonEnv, ConfigError, loadConfig } from '@world/runtime';

/** `WORLD_HOME` when unset. */
const DEFAULT_WORLD_HOME = './.world';

/**
 * True for loopback hosts: `localhost`, any 127.0.0.0/8 address and `::1` (world-spec §10:
 * "loopback only: 127.0.0.1, ::1, localhost").
 */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1' || host === '0:0:0:0:0:0:0:1';
  return false;
}

/**
 * Parses WORLD_BIND with the one host:port grammar (parseHostPort; port 0 picks a free one).
 * @throws ConfigError `WORLD_BIND must be host:port …` when malformed or the port is too large
 */
export function parseBind(text: string): HostPort {
  const bind = parseHostPort(text);
  if (bind === null) {
    throw new ConfigError(
      `gateway: invalid configuration: WORLD_BIND must be host:port (e.g. ${DEFAULT_BIND}), got "${text}"`,
    );
  }
  return bind;
}

/**
 * Refuses a bind beyond loopback unless the operator opted in (containers set
 * WORLD_BIND_PUBLIC=1); the daemon is a loopback service by default (world-spec §11
 * additional candidates: `bind host "0.0.0.0" is not loopback`, exit 2).
 * @throws ConfigError naming the host
 */
export function assertBindAllowed(bind: HostPort, allowPublic: boolean): void {
  if (!allowPublic && !isLoopbackHost(bind.host)) {
    throw new ConfigError(
      `gateway: bind host "${bind.host}" is not loopback (set WORLD_BIND_PUBLIC=1 to serve beyond loopback)`,
    );
  }
}

const Flag = z
  .enum(['1', '0', 'true', 'false', ''])
  .optional()
  .transform((v) => v === '1' || v === 'true');

/** The gateway's environment (DESIGN.md §5); main.ts validates it at start-up. */
const GatewayEnv = CommonEnv.extend({
  NATS_URL: z.string().url('NATS_URL must be a URL such as nats://127.0.0.1:4222'),
  WORLD_BIND: z.string().default(DEFAULT_BIND),
  WORLD_BIND_PUBLIC: Flag,
  WORLD_HOME: z.string().min(1).default(DEFAULT_WORLD_HOME),
  WORLD_PUBLIC_READS: Flag,
  WORLD_OPERATOR_TOKEN: z
    .string()
    .regex(HEX64, 'WORLD_OPERATOR_TOKEN must be 64 lowercase hex')
    .optional(),
  WORLD_OPERATOR_TOKEN_FILE: z.string().min(1).optional(),
  WORLD_CALL_DEADLINE_MS: z.coerce.number().int().positive().default(CALL_DEADLINE_MS),
  /** shown by GET /v1/health as db_path; the gateway itself opens no database */
  WORLD_DB_PATH: z.string().default(''),
  WORLD_REPLICA: z.string().min(1).optional(),
});

/** The validated configuration main.ts hands to startGateway. */
export interface GatewayConfig {
  natsUrl: string;
  prefix: string;
  bind: HostPort;
  worldHome: string;
  publicReads: boolean;
  operatorToken?: string;
  operatorTokenFile?: string;
  callDeadlineMs: number;
  dbPath: string;
  replica?: string;
}

/**
 * Reads and validates the gateway's environment.
 * @throws ConfigError (exit 2) for anything missing or malformed, and for a non-loopback bind
 * without WORLD_BIND_PUBLIC=1
 */
export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const parsed = loadConfig('gateway', GatewayEnv, env);
  const bind = parseBind(parsed.WORLD_BIND);
  assertBindAllowed(bind, parsed.WORLD_BIND_PUBLIC);
  return {
    natsUrl: parsed.NATS_URL,
    prefix: parsed.WORLD_SUBJECT_PREFIX,
    bind,
    worldHome: parsed.WORLD_HOME,
    publicReads: parsed.WORLD_PUBLIC_READS,
    operatorToken: parsed.WORLD_OPERATOR_TOKEN,
    operatorTokenFile: parsed.WORLD_OPERATOR_TOKEN_FILE,
    callDeadlineMs: parsed.WORLD_CALL_DEADLINE_MS,
    dbPath: parsed.WORLD_DB_PATH,
    replica: parsed.WORLD_REPLICA,
  };
}
