import type { z } from 'zod';
import { BadRequestError } from './errors.js';
import { CONTRACTS, type ParsedRequestOf, type SubjectName } from './subjects.js';

/** One line naming the first problem zod found: `<path>: <message>`. */
export function describeZodError(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'invalid input';
  const path = issue.path.length > 0 ? issue.path.join('.') : 'request';
  return `${path}: ${issue.message}`;
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
