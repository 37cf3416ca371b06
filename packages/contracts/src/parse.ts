import type { z } from 'zod';
import { BadRequestError } from './errors.js';
import { CONTRACTS, type ParsedRequestOf, type SubjectName } from './subjects.js';

/** A zod issue path as a field name: `objects[0].hash`, `entry.header.writtenBy`. */
export function fieldName(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}

/**
 * One line naming the first problem zod found: `<field>: <message>` (fieldName), or
 * `<whole>: <message>` when the value itself is wrong.
 * @param whole what the value is called: `request` (a subject's request, an environment)
 */
export function describeZodError(error: z.ZodError, whole = 'request'): string {
  const issue = error.issues[0];
  if (issue === undefined) return `invalid ${whole}`;
  const field = fieldName(issue.path);
  return `${field === '' ? whole : field}: ${issue.message}`;
}

/**
 * Parses a request with its subject's contract.
 * @throws BadRequestError naming the first invalid field
 */
export function parseRequest<S extends SubjectName>(subject: S, data: unknown): ParsedRequestOf<S> {
  const result = CONTRACTS[subject].request.safeParse(data);
  if (!result.success) throw new BadRequestError(`${subject}: ${describeZodError(result.error)}`);
  return result.data as ParsedRequestOf<S>;
}
