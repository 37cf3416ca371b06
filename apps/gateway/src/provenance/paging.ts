import { BadRequestError, PAGE_DEFAULT, PAGE_MAX } from '@world/contracts';

/** The exact 400 text of a bad log index (world-spec §5.7, §11 scenario 5). */
const LOG_INDEX_MESSAGE = 'log index must be a non-negative integer';

const NON_NEGATIVE = /^[0-9]+$/;
const INTEGER = /^-?[0-9]+$/;

/** A query value as Express hands it: absent, one string, or several (a repeated parameter). */
export type QueryValue = string | string[] | undefined | unknown;

/**
 * A page size: absent or < 1 → PAGE_DEFAULT (100), above PAGE_MAX → 500 (world-spec §5.1).
 * @throws BadRequestError `limit must be an integer` for anything else (world-spec §5.6)
 */
export function parsePageLimit(value: QueryValue): number {
  if (value === undefined) return PAGE_DEFAULT;
  if (typeof value !== 'string' || !INTEGER.test(value))
    throw new BadRequestError('limit must be an integer');
  const n = Number(value);
  if (n < 1) return PAGE_DEFAULT;
  return Math.min(n, PAGE_MAX);
}

/**
 * A non-negative integer that must fit a safe integer (log index, `from`).
 * @param message the 400 text
 * @throws BadRequestError with `message`
 */
export function parseNonNegative(value: QueryValue, message: string): number {
  if (typeof value !== 'string' || !NON_NEGATIVE.test(value)) throw new BadRequestError(message);
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new BadRequestError(message);
  return n;
}

/**
 * `from` of GET /v1/log: default 0, else a non-negative integer (world-spec §5.8).
 * @throws BadRequestError `from must be a non-negative integer`
 */
export function parseFrom(value: QueryValue): number {
  if (value === undefined) return 0;
  return parseNonNegative(value, 'from must be a non-negative integer');
}

/**
 * `{index}` of GET /v1/log/{index} (world-spec §5.7).
 * @throws BadRequestError `log index must be a non-negative integer`
 */
export function parseLogIndex(value: QueryValue): number {
  return parseNonNegative(value, LOG_INDEX_MESSAGE);
}
