/**
 * The effect link of `world why` (world-spec §2.8, §9.1; DESIGN.md §3): the effect record is
 * what its ref says and one World's broker holds (GET /v1/effects), it records what the plan
 * asked and what the output reports, and its request and result are what it names.
 */
import { EffectRecordSchema, SEMANTIC_IDS, type EffectRecord } from '@world/contracts';
import { preview, shortRef } from './format.js';
import { jsonOf, type Provenance } from './reads.js';
import { effectStatus } from './reads.js';
import { isRefText, link, objectProblems, type Link, type OutputBody } from './link.js';

/**
 * Checks effect record `ref`, the `i`-th of an invocation record.
 * @param planned the plan's `i`-th effect, when the plan could be read
 * @param output the output's body, when it is what its ref says
 */
export async function effectLink(
  reads: Provenance,
  ref: string,
  i: number,
  planned: { id?: string; effect?: string; scope?: string; cost?: number } | undefined,
  output: OutputBody | undefined,
): Promise<Link> {
  const id = planned?.id ?? `e${i + 1}`;
  const [object, theBrokers] = await Promise.all([reads.object(ref), reads.brokerRecord(ref)]);
  const problems = objectProblems(ref, object, [SEMANTIC_IDS.effectRecord]);
  if (!theBrokers)
    problems.push(
      "World's broker holds no such record (GET /v1/effects: not found): it never wrote it",
    );
  const parsed = object === null ? undefined : EffectRecordSchema.safeParse(jsonOf(object.payload));
  if (object !== null && !parsed?.success) {
    problems.push('payload is not a world/effect-record/v1 record');
    return link('effect', ref, problems, '');
  }
  const record = parsed?.data as EffectRecord | undefined;
  if (record === undefined) return link('effect', ref, problems, '');
  if (
    planned !== undefined &&
    (planned.effect !== record.effect ||
      planned.scope !== record.scope ||
      planned.cost !== record.cost)
  ) {
    problems.push(
      `records ${record.effect}@${record.scope} cost ${record.cost} but the plan asked ${planned.effect}@${planned.scope} cost ${planned.cost}`,
    );
  }
  const status = effectStatus(record);
  const reported = output?.world?.effects?.[i];
  if (output !== undefined && (reported?.record !== ref || reported?.status !== status)) {
    problems.push(
      `the output's world.effects[${i}] is ${preview(reported ?? null)}, not {"record":"${shortRef(ref)}","status":"${status}"}`,
    );
  }
  const request = isRefText(record.requestRef) ? await reads.object(record.requestRef) : null;
  const requestProblems = isRefText(record.requestRef)
    ? objectProblems(record.requestRef, request, [SEMANTIC_IDS.effectRequest])
    : ['requestRef is not a ref'];
  problems.push(...requestProblems.map((p) => `request ${p}`));
  if (requestProblems.length === 0 && request !== null) {
    const asked = jsonOf(request.payload) as
      { effect?: unknown; scope?: unknown; cost?: unknown } | undefined;
    if (
      asked?.effect !== record.effect ||
      asked?.scope !== record.scope ||
      asked?.cost !== record.cost
    ) {
      problems.push('the request asks for another effect, scope or cost than the record');
    }
  }
  let resultText = '';
  if (status === 'ok') {
    const result = isRefText(record.resultRef) ? await reads.object(record.resultRef) : null;
    const resultProblems = isRefText(record.resultRef)
      ? objectProblems(record.resultRef, result, [SEMANTIC_IDS.effectResult])
      : ['resultRef is not a ref'];
    problems.push(...resultProblems.map((p) => `result ${p}`));
    if (result !== null) resultText = ` result ${result.payload.length} B`;
  } else if (record.resultRef !== '') {
    problems.push(`a ${status} effect names a result (${shortRef(record.resultRef)})`);
  }
  const decision = record.allowed ? (record.failed ? 'failed' : 'allowed') : record.denial;
  return link(
    'effect',
    ref,
    problems,
    `${id} ${decision} ${record.effect}@${record.scope} cost ${record.cost} budget ${record.budgetBefore}→${record.budgetAfter}` +
      `${request === null ? '' : ` request ${request.payload.length} B`}${resultText}`,
  );
}
