/**
 * The largest `ledger.commit` a tool call can make, built as the planner and broker build one
 * (DESIGN.md §2: input, plan, output, invocation record; effect request, result and record),
 * with every bounded payload at its limit and every envelope string and id at its longest, so
 * the bus size bound (COMMIT_MESSAGE_MAX_BYTES) can be measured on the real encoders.
 */
import { makeJsonObject, toWireObject, type Ref, type WorldObject } from '@world/canonical';
import {
  INVOCATION_INPUT_MAX_BYTES,
  INVOCATION_OUTPUT_MAX_BYTES,
  PLAN_EFFECT_ID_MAX_CHARS,
  PLAN_PAYLOAD_MAX_BYTES,
  SEMANTIC_IDS,
  TASK_ID_MAX_CHARS,
  type RequestOf,
} from '@world/contracts';

/** Envelope strings (semantic id, provenance, writtenBy) are at most 256 characters. */
const ENVELOPE_MAX = 256;
/** Episode ids are at most 64 characters (world-spec §2.2). */
const EPISODE_MAX = 64;
/** A generous name length for effects and scopes (descriptors name them; all are shorter). */
const NAME = 64;
const LONG_REF = `sha256:${'f'.repeat(64)}` as Ref;

/**
 * A JSON object whose canonical bytes are exactly `bytes` long: `{"<key>":"aaa…"}` around the
 * fields given, padded with one string.
 */
function objectOfSize(
  bytes: number,
  fields: Record<string, unknown> = {},
): Record<string, unknown> {
  const empty = Buffer.byteLength(JSON.stringify({ ...fields, pad: '' }));
  if (empty > bytes) throw new Error(`fields alone are ${empty} bytes, over ${bytes}`);
  return { ...fields, pad: 'a'.repeat(bytes - empty) };
}

/** The objects and fields of the largest commit, and the sizes the bound counts. */
export function largestCommit(): {
  request: RequestOf<'ledger.commit'>;
  /** the five large payloads (input, plan, request, result, output), in bytes */
  large: number[];
} {
  const writtenBy = `coordinator:${'m'.repeat(ENVELOPE_MAX - 'coordinator:'.length)}`;
  const episodeId = 'e'.repeat(EPISODE_MAX);
  const invocationId = `a2a:${episodeId}:${'t'.repeat(TASK_ID_MAX_CHARS)}`;
  const semantic = (id: string) => `${id}/${'x'.repeat(ENVELOPE_MAX - id.length - 1)}`;
  const provenance = 'p'.repeat(ENVELOPE_MAX);
  const obj = (id: string, value: unknown): WorldObject =>
    makeJsonObject(semantic(id), provenance, value);

  const payload = objectOfSize(PLAN_PAYLOAD_MAX_BYTES, { op: 'write', path: 'p' });
  const effect = {
    id: 'i'.repeat(PLAN_EFFECT_ID_MAX_CHARS),
    effect: 'E'.repeat(NAME),
    scope: 'S'.repeat(NAME),
    cost: Number.MAX_SAFE_INTEGER,
  };
  const input = obj(SEMANTIC_IDS.invocationInput, objectOfSize(INVOCATION_INPUT_MAX_BYTES));
  const plan = obj(SEMANTIC_IDS.effectPlan, {
    plan: 'world/effect-plan/v1',
    effects: [{ ...effect, payload }],
    finish: true,
    result: null,
  });
  const effectRequest = obj(SEMANTIC_IDS.effectRequest, {
    effect: effect.effect,
    scope: effect.scope,
    cost: effect.cost,
    now: Number.MAX_SAFE_INTEGER,
    payload,
  });
  const result = obj(SEMANTIC_IDS.effectResult, objectOfSize(INVOCATION_OUTPUT_MAX_BYTES));
  const record = obj(SEMANTIC_IDS.effectRecord, {
    effect: effect.effect,
    scope: effect.scope,
    cost: effect.cost,
    budgetBefore: Number.MAX_SAFE_INTEGER,
    budgetAfter: Number.MAX_SAFE_INTEGER,
    allowed: true,
    failed: false,
    denial: 'denied:effect-name',
    requestRef: LONG_REF,
    resultRef: LONG_REF,
  });
  const output = obj(
    SEMANTIC_IDS.invocationOutput,
    objectOfSize(INVOCATION_OUTPUT_MAX_BYTES, {
      world: { plan: LONG_REF, effects: [{ id: effect.id, status: 'failed', record: LONG_REF }] },
    }),
  );
  const invocationRecord = obj(SEMANTIC_IDS.invocationRecord, {
    invocationId,
    episodeId,
    skillId: 's'.repeat(EPISODE_MAX),
    transitionFn: LONG_REF,
    interpreter: LONG_REF,
    semanticsEpoch: Number.MAX_SAFE_INTEGER,
    input: input.hash,
    output: output.hash,
    plan: plan.hash,
    effects: [record.hash],
  });
  return {
    request: {
      invocationId,
      writtenBy,
      semanticsEpoch: Number.MAX_SAFE_INTEGER,
      transitionFn: LONG_REF,
      interpreter: LONG_REF,
      transitionRef: invocationRecord.hash,
      stateRoot: output.hash,
      objects: [input, plan, output, invocationRecord, effectRequest, result, record].map(
        toWireObject,
      ),
    },
    large: [
      INVOCATION_INPUT_MAX_BYTES,
      PLAN_PAYLOAD_MAX_BYTES,
      PLAN_PAYLOAD_MAX_BYTES,
      INVOCATION_OUTPUT_MAX_BYTES,
      INVOCATION_OUTPUT_MAX_BYTES,
    ],
  };
}
