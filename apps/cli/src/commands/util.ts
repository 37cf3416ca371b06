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
