import { pino, type Logger } from 'pino';
import type { LoggerService } from '@nestjs/common';

/**
 * The process logger: structured JSON lines (pino) on stdout. Level from WORLD_LOG_LEVEL
 * (default `info`; `silent` in tests unless asked otherwise).
 */
export const logger: Logger = pino({
  level: process.env.WORLD_LOG_LEVEL ?? (process.env.JEST_WORKER_ID !== undefined ? 'silent' : 'info'),
  base: { pid: process.pid },
  redact: { paths: ['token', '*.token', 'authorization', '*.authorization'], censor: '[redacted]' },
});

/** A child logger for one service. */
export function serviceLogger(service: string): Logger {
  return logger.child({ service });
}

/** NestJS's logger interface over pino, so framework lines are JSON too. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly pinoLog: Logger) {}
  private write(level: 'info' | 'error' | 'warn' | 'debug' | 'trace', message: unknown, context: unknown[]) {
    this.pinoLog[level]({ context: context[context.length - 1] }, String(message));
  }
  log(message: unknown, ...context: unknown[]) {
    this.write('info', message, context);
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
