import { Inject, Injectable } from '@nestjs/common';
import { and, asc, eq, isNull, sql, type SQL } from 'drizzle-orm';
import type { WorldObject } from '@world/canonical';
import { LeaseLostError, type EffectRecord } from '@world/contracts';
import { DATABASE, type DatabaseHandle } from '@world/runtime';
import { effectIntents, effectOutcomes, effectRecords, spend } from '../db/schema.js';
import { EpisodesRepository } from '../episodes/episodes.repository.js';
import { ObjectsRepository } from '../objects/objects.repository.js';
import type { Queryable } from '../db/types.js';

/** Spend of an episode: `spendKey(effect, scope)` → Σ cost of its intents. */
export type SpendMap = ReadonlyMap<string, number>;

/** The key of one (effect, scope) in a SpendMap. */
export function spendKey(effect: string, scope: string): string {
  return JSON.stringify([effect, scope]);
}

/** An effect record bound to the call that produced it. */
export interface RecordRow {
  ref: string;
  episodeId: string;
  invocationId: string;
  record: EffectRecord;
}

/** What the decision inside tx1 chose to write. */
export type EffectStart =
  | { kind: 'denied'; objects: WorldObject[]; record: RecordRow }
  | {
      kind: 'allowed';
      objects: WorldObject[];
      intent: {
        invocationId: string;
        effect: string;
        scope: string;
        cost: number;
        requestRef: string;
        logicalTime: number;
      };
    };

/** An intent with its outcome (null while indeterminate). */
export interface IntentState {
  invocationId: string;
  episodeId: string;
  ordinal: number;
  effect: string;
  scope: string;
  cost: number;
  status: 'succeeded' | 'failed' | null;
  recordRef: string | null;
}

/** The only code touching `broker.spend`, `effect_intents`, `effect_outcomes`, `effect_records`. */
@Injectable()
export class EffectsRepository {
  constructor(@Inject(DATABASE) private readonly database: DatabaseHandle) {}

  /**
   * tx1 (world-internals §5.2): locks the episode row FOR UPDATE, checks the fence, reads the
   * episode's spend, lets `choose` decide, then writes either the denial (request object,
   * record object, record row; nothing spent, no intent) or the allowed start (spend += cost,
   * intent with ordinal max+1, request object). All or nothing.
   * @returns the start, with the minted ordinal when allowed
   * @throws LeaseLostError when the fence is not the lease's current one (nothing written)
   */
  async begin(
    episodeId: string,
    fence: number,
    choose: (spent: SpendMap) => EffectStart,
  ): Promise<{ start: EffectStart; ordinal: number | null }> {
    return this.database.db.transaction(async (tx) => {
      const episode = await EpisodesRepository.lock(tx, episodeId);
      if (episode === null || episode.leaseHolder === null || episode.leaseFence !== fence) {
        throw new LeaseLostError(episodeId, fence);
      }
      const rows = await tx.select().from(spend).where(eq(spend.episodeId, episodeId));
      const start = choose(new Map(rows.map((r) => [spendKey(r.effect, r.scope), r.spent])));
      await ObjectsRepository.insertMany(tx, start.objects);
      if (start.kind === 'denied') {
        await insertRecord(tx, start.record);
        return { start, ordinal: null };
      }
      const { intent } = start;
      await tx
        .insert(spend)
        .values({ episodeId, effect: intent.effect, scope: intent.scope, spent: intent.cost })
        .onConflictDoUpdate({
          target: [spend.episodeId, spend.effect, spend.scope],
          set: { spent: sql`${spend.spent} + ${intent.cost}` },
        });
      const [max] = await tx
        .select({ value: sql<string | number | null>`max(${effectIntents.ordinal})` })
        .from(effectIntents)
        .where(eq(effectIntents.episodeId, episodeId));
      const ordinal = max?.value === null || max?.value === undefined ? 0 : Number(max.value) + 1;
      await tx.insert(effectIntents).values({ episodeId, ordinal, ...intent });
      return { start, ordinal };
    });
  }

  /**
   * tx2 (world-internals §2.3): result object (when any), record object, record row, then the
   * outcome. `beforeOutcome` runs inside the transaction just before the outcome insert (the
   * `before-outcome` crash point).
   */
  async finish(
    episodeId: string,
    ordinal: number,
    objects: WorldObject[],
    record: RecordRow,
    status: 'succeeded' | 'failed',
    beforeOutcome: () => void,
  ): Promise<void> {
    await this.database.db.transaction(async (tx) => {
      await ObjectsRepository.insertMany(tx, objects);
      await insertRecord(tx, record);
      beforeOutcome();
      await tx.insert(effectOutcomes).values({ episodeId, ordinal, status, recordRef: record.ref });
    });
  }

  /** An invocation's intents in (episode, ordinal) order, with their outcomes. */
  async byInvocation(invocationId: string): Promise<IntentState[]> {
    return this.intentStates(eq(effectIntents.invocationId, invocationId));
  }

  /** Every intent without an outcome (world-internals §5.5). */
  async indeterminate(): Promise<IntentState[]> {
    return this.intentStates(isNull(effectOutcomes.ordinal));
  }

  private async intentStates(where: SQL): Promise<IntentState[]> {
    const rows = await this.database.db
      .select({
        invocationId: effectIntents.invocationId,
        episodeId: effectIntents.episodeId,
        ordinal: effectIntents.ordinal,
        effect: effectIntents.effect,
        scope: effectIntents.scope,
        cost: effectIntents.cost,
        status: effectOutcomes.status,
        recordRef: effectOutcomes.recordRef,
      })
      .from(effectIntents)
      .leftJoin(
        effectOutcomes,
        and(
          eq(effectOutcomes.episodeId, effectIntents.episodeId),
          eq(effectOutcomes.ordinal, effectIntents.ordinal),
        ),
      )
      .where(where)
      .orderBy(asc(effectIntents.episodeId), asc(effectIntents.ordinal));
    return rows.map((r) => ({ ...r, status: r.status as IntentState['status'] }));
  }
}

async function insertRecord(tx: Queryable, row: RecordRow): Promise<void> {
  await tx
    .insert(effectRecords)
    .values({
      ref: row.ref,
      episodeId: row.episodeId,
      invocationId: row.invocationId,
      ...row.record,
    })
    .onConflictDoNothing();
}
