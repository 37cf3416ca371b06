import { z } from 'zod';
import { MAX_TCP_PORT, describeZodError } from '@world/contracts';

/** A configuration that failed validation at start-up; the process exits with code 2. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/**
 * Validates environment variables against a zod schema (DESIGN.md §5).
 * @param service the service name, used in the message
 * @throws ConfigError `<service>: invalid configuration: <VAR>: <problem>`
 */
export function loadConfig<T extends z.ZodType>(
  service: string,
  schema: T,
  env: NodeJS.ProcessEnv = process.env,
): z.output<T> {
  const result = schema.safeParse(env);
  if (!result.success) {
    throw new ConfigError(`${service}: invalid configuration: ${describeZodError(result.error)}`);
  }
  return result.data;
}

/** Runs a process's main; a ConfigError prints one line and exits 2, anything else exits 1. */
export function runMain(main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(1);
  });
}

/**
 * The levels WORLD_LOG_LEVEL may name (pino's, lowest to highest, and `silent`).
 * @internal exported for config.spec.ts
 */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
/** A valid WORLD_LOG_LEVEL. */
export type LogLevelName = (typeof LOG_LEVELS)[number];
const LOG_LEVEL_MESSAGE = `WORLD_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`;

/**
 * True when `value` is a level WORLD_LOG_LEVEL may name. The process logger is made before any
 * configuration is loaded, so it takes only a valid level from the environment (else its
 * default); CommonEnv then refuses the bad value with one line (exit 2).
 */
export function isLogLevel(value: string | undefined): value is LogLevelName {
  return (LOG_LEVELS as readonly string[]).includes(value ?? '');
}

/** What an on/off variable may say: `1` or `true` (on), `0`, `false` or empty (off). */
const FLAG_VALUES = ['1', 'true', '0', 'false', ''] as const;

/**
 * An on/off environment variable (README "Configuration"): FLAG_VALUES only, anything else
 * refused at start with `<name> must be 1 or true (on), or 0, false or empty (off)`; unset is off.
 * @param name the variable, for the message
 * @returns a schema whose output is a boolean
 */
export function envFlag(name: string) {
  return z
    .enum(FLAG_VALUES, { message: `${name} must be 1 or true (on), or 0, false or empty (off)` })
    .optional()
    .transform((v) => v === '1' || v === 'true');
}

const HEALTH_PORT_MESSAGE = `WORLD_HEALTH_PORT must be a TCP port number (0-${MAX_TCP_PORT})`;

/** Common environment of every service process. */
export const CommonEnv = z.object({
  NATS_URL: z.string().url('NATS_URL must be a URL such as nats://127.0.0.1:4222').optional(),
  DATABASE_URL: z
    .string()
    .url('DATABASE_URL must be a URL such as postgres://user@host/db')
    .optional(),
  WORLD_SUBJECT_PREFIX: z
    .string()
    .regex(
      /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/,
      'WORLD_SUBJECT_PREFIX must be dot-separated tokens',
    )
    .default('world'),
  WORLD_CALL_DEADLINE_MS: z.coerce.number().int().positive().default(20_000),
  /** the process logger's level (logger.ts reads it; validated here so a bad one exits 2) */
  WORLD_LOG_LEVEL: z.preprocess(
    (value) => (value === '' ? undefined : value),
    z.enum(LOG_LEVELS, { message: LOG_LEVEL_MESSAGE }).optional(),
  ),
  /** the health server's port (/livez, /readyz, /metrics); unset → none; 0 → any free port */
  WORLD_HEALTH_PORT: z.preprocess(
    (value) => (value === '' ? undefined : value),
    z.coerce
      .number({ message: HEALTH_PORT_MESSAGE })
      .int(HEALTH_PORT_MESSAGE)
      .min(0, HEALTH_PORT_MESSAGE)
      .max(MAX_TCP_PORT, HEALTH_PORT_MESSAGE)
      .optional(),
  ),
  /** the interface the health server binds (default all: probes and scrapers come from outside a container) */
  WORLD_HEALTH_HOST: z
    .string()
    .min(1, 'WORLD_HEALTH_HOST must be a host name or address')
    .default('0.0.0.0'),
});
