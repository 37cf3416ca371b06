/**
 * Which episode produced which of the ledger's objects — the facts behind the visibility rule of
 * contracts `confinementOf` (DESIGN.md §3 "Who may read and write what"), as one SQL condition.
 *
 * An object belongs to every episode that committed an entry carrying it (commit_objects: one row
 * per carrying commit): a tool entry belongs to the episode of its invocation id (the committed
 * journal row, `commit_journal.episode_id`), a REST entry to the episode its writtenBy names
 * (`log_entries.writer_episode`). An object no entry but the genesis carries was published to
 * everyone: the registry archives (tool registry, transition sources, interpreter, epoch
 * registry) and the genesis object; a REST commit cannot carry their semantic ids
 * (commit/rest-authorship.ts), so nobody can take one of them over.
 */
import { sql, type SQL } from 'drizzle-orm';
import { objects } from '../db/schema.js';

/** The genesis entry's index: its objects are everyone's (DESIGN.md §7.3). */
const GENESIS_INDEX = 0;

/**
 * The condition "the object in this row may be read by `episode`": carried by an entry of that
 * episode, or published to everyone. Used by every object read of a confined scope.
 * @param hash the column holding the object's ref in the query it is added to
 */
export function readableBy(episode: string, hash: SQL | typeof objects.hash = objects.hash): SQL {
  return sql`(EXISTS (
      SELECT 1 FROM ledger.commit_objects co
        JOIN ledger.log_entries e ON e.entry_index = co.entry_index
        LEFT JOIN ledger.commit_journal j ON j.entry_index = co.entry_index AND j.kind = 'tool'
       WHERE co.object_ref = ${hash} AND (e.writer_episode = ${episode} OR j.episode_id = ${episode}))
    OR NOT EXISTS (
      SELECT 1 FROM ledger.commit_objects co
       WHERE co.object_ref = ${hash} AND co.entry_index > ${GENESIS_INDEX}))`;
}
