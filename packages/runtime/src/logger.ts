import { pino, type DestinationStream, type Level, type Logger } from 'pino';
import { PinoPretty } from 'pino-pretty';
import type { LoggerService } from '@nestjs/common';
import { callContext, currentTraceId } from './trace.js';
import { isLogLevel } from './config.js';

/** A sink that receives every log line (one JSON document, newline-terminated) while attached. */
type LineSink = (line: string) => void;

/**
 * Where lines go: JSON (one document a line) when stdout is not a terminal — files, pipes,
 * collectors — and pino-pretty's human-readable lines when a person watches a terminal.
 */
const stdout: DestinationStream = process.stdout.isTTY
  ? PinoPretty({
      sync: true,
      colorize: true,
      singleLine: true,
      translateTime: 'SYS:HH:MM:ss',
      ignore: 'pid,hostname,service,replica',
      messageFormat: '{service}: {msg}',
    })
  : pino.destination({ dest: 1, sync: true });
const sinks = new Set<LineSink>();
/** Lines go to stdout, or — while a capture is attached (tests) — to the captures instead. */
const destination: DestinationStream = {
  write(line: string) {
    if (sinks.size === 0) stdout.write(line);
    else for (const sink of sinks) sink(line);
  },
};

/**
 * The process logger: structured JSON lines (pino) on stdout. Level from WORLD_LOG_LEVEL
 * (default `info`; `silent` in tests unless asked otherwise; a value that is not a level is
 * ignored here, never handed to pino, and refused by each process's configuration check,
 * CommonEnv: exit 2 with one line). Every line written inside a call
 * context carries its `invocationId` (and `traceId` when the call is traced), so one call's
 * lines can be found in every service's log (README "Logs"). Tokens are redacted.
 */
export const logger: Logger = pino(
  {
    level: isLogLevel(process.env.WORLD_LOG_LEVEL)
      ? process.env.WORLD_LOG_LEVEL
      : process.env.JEST_WORKER_ID !== undefined
        ? 'silent'
        : 'info',
    base: { pid: process.pid },
    redact: {
      paths: ['token', '*.token', 'authorization', '*.authorization'],
      censor: '[redacted]',
    },
    // pino merges the line's own fields into the returned object: it must be a fresh one.
    mixin() {
      const context = callContext();
      if (context === undefined) return {};
      const traceId = currentTraceId();
      if (context.invocationId === undefined) return traceId === undefined ? {} : { traceId };
      return traceId === undefined
        ? { invocationId: context.invocationId }
        : { invocationId: context.invocationId, traceId };
    },
  },
  destination,
);

/** A child logger for one service. */
export function serviceLogger(service: string): Logger {
  return logger.child({ service });
}

/**
 * Lines captured by captureLogs.
 * @internal exported for the suites that read what services log (logger.spec.ts, call-context.int-spec.ts, …)
 */
export interface LogCapture {
  /** every line written since the capture started, parsed */
  readonly records: Array<Record<string, unknown>>;
  /** Detaches the capture and restores the previous level. */
  stop(): void;
}

/**
 * Diverts this process's log lines from stdout into memory (tests of what services log) and
 * raises the level so they are written. Child loggers follow the root's level unless they set
 * their own, so loggers made before the capture are captured too.
 * @param level the level to log at while capturing (default `info`)
 * @internal exported for the suites that read what services log (logger.spec.ts, integrity.spec.ts, call-context.int-spec.ts and the apps' test suites)
 */
export function captureLogs(level: Level = 'info'): LogCapture {
  const records: Array<Record<string, unknown>> = [];
  const previous = logger.level;
  const sink: LineSink = (line) => records.push(JSON.parse(line) as Record<string, unknown>);
  sinks.add(sink);
  logger.level = level;
  return {
    records,
    stop() {
      sinks.delete(sink);
      logger.level = previous;
    },
  };
}

/**
 * The Nest contexts whose `log` lines are start-up bookkeeping (one line per module, controller
 * and route mapped, about sixty at boot): written at debug, so the default level shows none.
 */
const BOOT_CONTEXTS: ReadonlySet<string> = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestApplication',
  'NestMicroservice',
]);

/** NestJS's logger interface over pino, so framework lines are JSON too. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly pinoLog: Logger) {}
  private write(
    level: 'info' | 'error' | 'warn' | 'debug' | 'trace',
    message: unknown,
    context: unknown[],
  ) {
    this.pinoLog[level]({ context: context[context.length - 1] }, String(message));
  }
  log(message: unknown, ...context: unknown[]) {
    const where = context[context.length - 1];
    this.write(
      typeof where === 'string' && BOOT_CONTEXTS.has(where) ? 'debug' : 'info',
      message,
      context,
    );
  }
  error(message: unknown, ...context: unknown[]) {
    this.write('error', message, context);
  }
  warn(message: unknown, ...context: unknown[]) {
    this.write('warn', message, context);
  }
  debug(message: unknown, ...context: unknown[]) {
    this.write('debug', message, context);
  }
  verbose(message: unknown, ...context: unknown[]) {
    this.write('trace', message, context);
  }
}
