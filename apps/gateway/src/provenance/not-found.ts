import { NotFoundError } from '@world/contracts';

/**
 * Awaits a read and answers a miss with the route's own 404 text (world-spec §5.3–§5.9), so the
 * client-facing strings live at the edge whatever the service said.
 * @throws NotFoundError(message) on a miss; any other error unchanged
 */
export async function orNotFound<T>(read: Promise<T>, message: string): Promise<T> {
  try {
    return await read;
  } catch (err) {
    if (err instanceof NotFoundError) throw new NotFoundError(message);
    throw err;
  }
}

/** The 404 texts of the read routes (world-spec §5.3–§5.9). */
export const NOT_FOUND = {
  head: 'no world head has been selected yet',
  world: 'world not found',
  object: 'object not found',
  logEntry: 'log entry not found',
  registry: 'registry head not found',
  receipt: 'receipt not found',
  effectRecord: 'effect record not found',
} as const;
