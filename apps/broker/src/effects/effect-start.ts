/**
 * The rows tx1 writes for one effect, as the decision chose them: a denial's record, or an
 * allowed start's intent. Plain shapes shared by the statement builders (effects.statements.ts),
 * the repository and the use case, kept apart from both so neither imports the other for them.
 */
import type { WorldObject } from '@world/canonical';
import type { EffectRecord } from '@world/contracts';

/** An effect record bound to the call that produced it. */
export interface RecordRow {
  ref: string;
  episodeId: string;
  invocationId: string;
  record: EffectRecord;
}

/** A denial to write in tx1: its request and record objects and the record row. */
export interface DeniedStart {
  kind: 'denied';
  objects: WorldObject[];
  record: RecordRow;
}

/** An allowed start to write in tx1: the request object, then spend += cost and the intent. */
export interface AllowedStart {
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
}

/** What the decision inside tx1 chose to write. */
export type EffectStart = DeniedStart | AllowedStart;
