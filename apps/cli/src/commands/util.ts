import { randomBytes } from 'node:crypto';

/** A replica or connection name that is unique on this machine. */
export function uniqueReplica(prefix: string): string {
  return `${prefix}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

/** A one-line error for the user; the CLI prints it and exits with `exitCode`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/**
 * Decodes bytes the user handed the client (a `--json @file`, standard input) as UTF-8,
 * refusing a malformed sequence instead of replacing it with U+FFFD (RFC 3629 §3; the gateway
 * refuses such a request body the same way, apps/gateway/src/http/body.ts), so what a call sends
 * is exactly what the user wrote.
 * @param bytes the raw bytes
 * @param what where they came from, for the message (`--json @args.json`, `standard input`)
 * @throws CliError (exit 2) `<what>: not valid UTF-8 (malformed bytes are refused, not replaced)`
 */
export function strictUtf8(bytes: Uint8Array, what: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new CliError(`${what}: not valid UTF-8 (malformed bytes are refused, not replaced)`, 2);
  }
}
