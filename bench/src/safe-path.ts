import { isAbsolute, normalize } from 'node:path';

/**
 * The tool's path argument as a relative path that stays inside the served directory, or null
 * (not a string, empty, absolute, or climbing out with `..`). The baseline's and the floor's
 * one check on the argument.
 */
export function safeRelative(path: unknown): string | null {
  const rel = typeof path === 'string' ? normalize(path) : '';
  return rel === '' || isAbsolute(rel) || rel.startsWith('..') ? null : rel;
}
