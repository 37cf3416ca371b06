import type { z } from 'zod';
import { BadRequestError, describeZodError, fieldName } from '@world/contracts';

/**
 * One line naming the first problem of a request body (world-spec §5.1: "message names what"):
 * `unknown field "<f>"` and `missing field "<f>"` in a body's words, any other problem as every
 * contract states it (describeZodError: `<field>: <problem>`, `body: <problem>`).
 */
function describeBodyIssue(error: z.ZodError): string {
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
  return describeZodError(error, 'body');
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
