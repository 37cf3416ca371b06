import { toWireObject, type Ref, type WorldObject } from '@world/canonical';
import {
  INVOCATION_OUTPUT_MAX_BYTES,
  PlanLawError,
  SEMANTIC_IDS,
  type RequestOf,
  type ToolDescriptor,
} from '@world/contracts';
import { jsonObject } from './json-object.js';

/** What one call's commit is built from. */
export interface CallCommit {
  invocationId: string;
  episodeId: string;
  writtenBy: string;
  descriptor: ToolDescriptor;
  input: WorldObject;
  plan: WorldObject;
  output: Record<string, unknown>;
  /** the effect record refs (none for a refusal) */
  records: string[];
  /** the broker's request, result and record objects */
  brokerObjects: WorldObject[];
  /** the claim's token (keyed calls) */
  claimToken?: string;
}

/**
 * Builds a call's `ledger.commit` request: the output object, the invocation record naming
 * input, output, plan and effect records (world-internals §2.2), and every object reachable
 * from the entry.
 * @returns the request and the output object's wire payload (its canonical bytes, base64)
 * @throws PlanLawError when the output exceeds INVOCATION_OUTPUT_MAX_BYTES
 */
export function commitRequestOf(call: CallCommit): {
  request: RequestOf<'ledger.commit'>;
  outputRef: Ref;
  outputBytes: string;
} {
  const { writtenBy, descriptor } = call;
  const outputObject = jsonObject(SEMANTIC_IDS.invocationOutput, writtenBy, call.output);
  if (outputObject.payload.length > INVOCATION_OUTPUT_MAX_BYTES) {
    throw new PlanLawError(
      `output is ${outputObject.payload.length} bytes; the limit is ${INVOCATION_OUTPUT_MAX_BYTES}`,
    );
  }
  const record = jsonObject(SEMANTIC_IDS.invocationRecord, writtenBy, {
    invocationId: call.invocationId,
    episodeId: call.episodeId,
    skillId: descriptor.id,
    transitionFn: descriptor.transitionFn,
    interpreter: descriptor.interpreter,
    semanticsEpoch: descriptor.semanticsEpoch,
    input: call.input.hash,
    output: outputObject.hash,
    plan: call.plan.hash,
    effects: call.records,
  });
  const objects = [call.input, call.plan, outputObject, record, ...call.brokerObjects].map(
    toWireObject,
  );
  return {
    request: {
      invocationId: call.invocationId,
      writtenBy,
      semanticsEpoch: descriptor.semanticsEpoch,
      transitionFn: descriptor.transitionFn,
      interpreter: descriptor.interpreter,
      transitionRef: record.hash,
      stateRoot: outputObject.hash,
      objects,
      ...(call.claimToken === undefined ? {} : { claimToken: call.claimToken }),
    },
    outputRef: outputObject.hash,
    outputBytes: objects[2]!.payload,
  };
}
