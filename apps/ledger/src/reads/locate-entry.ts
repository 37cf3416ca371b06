/**
 * `ledger.log.locate`: which entry a `world why` target names (world-spec §7.3), by index, at any
 * depth of the log — the newest entry naming a ref in the asked roles (the record through
 * log_entries_by_transition_ref, the rest through `ledger.entry_refs`, migration
 * 0007_entry_refs), or the entry whose record carries an invocation id (the timeline's
 * invocation_id). A scope confined to an episode finds only entries whose record it may read
 * (reads/ownership.ts), as a walk reading that record would: other episodes' payloads are never
 * consulted on its behalf. Matching a ref as a record needs no payload (the header is public,
 * DESIGN.md §3).
 */
import { Inject, Injectable } from '@nestjs/common';
import { sql, type SQL } from 'drizzle-orm';
import { confinementOf, type ParsedRequestOf, type RefRole, type ReplyOf } from '@world/contracts';
import { DATABASE, type DatabaseHandle } from '@world/runtime';
import { readableBy } from './ownership.js';

/** The entry_refs roles (every RefRole but `record`, which is the header's transitionRef). */
type NamedRole = Exclude<RefRole, 'record'>;

/** The only reader of `ledger.entry_refs` and the timeline's invocation ids for a target. */
@Injectable()
export class LocateRepository {
  constructor(@Inject(DATABASE) private readonly database: DatabaseHandle) {}

  /**
   * `AND` the record of entry `le` is readable by `episode`, or nothing for an unconfined scope
   * (`le`, not `e`: readableBy's own subqueries use `e`).
   */
  private readable(episode: string | null): SQL {
    return episode === null ? sql`` : sql` AND ${readableBy(episode, sql`le.transition_ref`)}`;
  }

  /** The newest entry naming `ref` in one of `roles`, or null. */
  async byRef(
    ref: string,
    roles: readonly RefRole[],
    episode: string | null,
  ): Promise<number | null> {
    const named = roles.filter((r): r is NamedRole => r !== 'record');
    const parts: SQL[] = [];
    if (roles.includes('record'))
      parts.push(sql`(SELECT e.entry_index AS i FROM ledger.log_entries e
         WHERE e.transition_ref = ${ref} ORDER BY e.entry_index DESC LIMIT 1)`);
    if (named.length > 0)
      parts.push(sql`(SELECT r.entry_index AS i FROM ledger.entry_refs r
          JOIN ledger.log_entries le ON le.entry_index = r.entry_index
         WHERE r.ref = ${ref} AND r.role IN ${named}${this.readable(episode)}
         ORDER BY r.entry_index DESC LIMIT 1)`);
    return this.newest(sql`SELECT max(i) AS i FROM (${sql.join(parts, sql` UNION ALL `)}) s`);
  }

  /** The newest entry whose record's invocationId is `id`, or null. */
  byInvocation(id: string, episode: string | null): Promise<number | null> {
    return this.newest(sql`SELECT t.entry_index AS i FROM ledger.timeline t
        JOIN ledger.log_entries le ON le.entry_index = t.entry_index
       WHERE t.invocation_id = ${id}${this.readable(episode)}
       ORDER BY t.entry_index DESC LIMIT 1`);
  }

  private async newest(query: SQL): Promise<number | null> {
    // node-postgres's result: int8 comes back as text.
    const result = (await this.database.db.execute(query)) as unknown as {
      rows: Array<{ i: string | number | null }>;
    };
    const i = result.rows[0]?.i ?? null;
    return i === null ? null : Number(i);
  }
}

/** `ledger.log.locate`: the entry a ref or invocation id names (file doc). */
@Injectable()
export class LocateEntry {
  constructor(private readonly repository: LocateRepository) {}

  /** @returns `{entryIndex}`, null when nothing the scope may read names the target */
  async execute(
    request: ParsedRequestOf<'ledger.log.locate'>,
  ): Promise<ReplyOf<'ledger.log.locate'>> {
    const episode = confinementOf(request.scope, 'object');
    const entryIndex =
      'invocationId' in request
        ? await this.repository.byInvocation(request.invocationId, episode)
        : await this.repository.byRef(request.ref, request.roles, episode);
    return { entryIndex };
  }
}
