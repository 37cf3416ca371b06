import type { z } from 'zod';
import { BadRequestError } from '@world/contracts';

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
 * One line naming the first problem of a request body: `unknown field "<f>"`,
 * `missing field "<f>"`, or `<field>: <problem>` (world-spec §5.1: "message names what").
 */
export function describeBodyIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'invalid body';
  const where = fieldName(issue.path);
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    return `unknown field "${where === '' ? key : `${where}.${key}`}"`;
  }
  if (issue.code === 'invalid_type' && issue.message.endsWith('received undefined')) {
    return `missing field "${where}"`;
  }
  return `${where === '' ? 'body' : where}: ${issue.message}`;
}

/**
 * Validates a parsed body with a (strict) schema.
 * @throws BadRequestError naming the first problem
 */
export function parseBody<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw new BadRequestError(describeBodyIssue(result.error));
  return result.data;
}
