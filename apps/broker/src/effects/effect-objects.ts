import { makeJsonObject, type WorldObject } from '@world/canonical';
import {
  BROKER_PROVENANCE,
  SEMANTIC_IDS,
  type DenialLabel,
  type EffectRecord,
} from '@world/contracts';

/** What was asked: the fields of a `world/effect-request/v1` object. */
export interface EffectRequestFields {
  effect: string;
  scope: string;
  cost: number;
  /** the caller's logical time, epoch ms: the decision time */
  now: number;
  payload: Record<string, unknown>;
}

/**
 * The `world/effect-request/v1` object. This edition's encoding is the RFC 8785 canonical JSON
 * of `{effect, scope, cost, now, payload}` (the Go system used a length-prefixed binary form,
 * world-spec §2.8; refs are not byte-compatible anyway, DESIGN.md §7.7). Provenance host/broker.
 */
export function effectRequestObject(fields: EffectRequestFields): WorldObject {
  const { effect, scope, cost, now, payload } = fields;
  return makeJsonObject(SEMANTIC_IDS.effectRequest, BROKER_PROVENANCE, {
    effect,
    scope,
    cost,
    now,
    payload,
  });
}

/** The `world/effect-result/v1` object: the canonical JSON of the handler's output object. */
export function effectResultObject(output: Record<string, unknown>): WorldObject {
  return makeJsonObject(SEMANTIC_IDS.effectResult, BROKER_PROVENANCE, output);
}

/** The three arms of an effect record (world-internals §5.2). */
export type RecordArm =
  | { arm: 'succeeded'; budgetBefore: number; resultRef: string }
  | { arm: 'failed'; budgetBefore: number }
  | { arm: 'denied'; budgetBefore: number; denial: DenialLabel };

/**
 * The record of one effect, by the three-arm law (world-internals §5.2, world-spec §2.8):
 * succeeded — allowed, not failed, no denial, after = before − cost, resultRef set;
 * failed — allowed, failed, no denial, after = before − cost, resultRef '';
 * denied — not allowed, not failed, the denial label, after = before, resultRef ''.
 * The payload is exactly the ten fields of `world/effect-record/v1`.
 */
export function effectRecord(
  ask: { effect: string; scope: string; cost: number },
  requestRef: string,
  arm: RecordArm,
): EffectRecord {
  const base = {
    effect: ask.effect,
    scope: ask.scope,
    cost: ask.cost,
    budgetBefore: arm.budgetBefore,
    requestRef,
  };
  switch (arm.arm) {
    case 'succeeded':
      return {
        ...base,
        budgetAfter: arm.budgetBefore - ask.cost,
        allowed: true,
        failed: false,
        denial: '',
        resultRef: arm.resultRef,
      };
    case 'failed':
      return {
        ...base,
        budgetAfter: arm.budgetBefore - ask.cost,
        allowed: true,
        failed: true,
        denial: '',
        resultRef: '',
      };
    case 'denied':
      return {
        ...base,
        budgetAfter: arm.budgetBefore,
        allowed: false,
        failed: false,
        denial: arm.denial,
        resultRef: '',
      };
  }
}

/** The `world/effect-record/v1` object of a record (canonical JSON, provenance host/broker). */
export function effectRecordObject(record: EffectRecord): WorldObject {
  const {
    effect,
    scope,
    cost,
    budgetBefore,
    budgetAfter,
    allowed,
    failed,
    denial,
    requestRef,
    resultRef,
  } = record;
  return makeJsonObject(SEMANTIC_IDS.effectRecord, BROKER_PROVENANCE, {
    effect,
    scope,
    cost,
    budgetBefore,
    budgetAfter,
    allowed,
    failed,
    denial,
    requestRef,
    resultRef,
  });
}
