/**
 * The broker's start-up integrity scan (world-spec §2.18; DESIGN.md §3 "Each owner scans its
 * hashed data at start"). Newest first, within the scan's budgets, every object the broker
 * stored (effect requests, results and records) must hash to its ref (storedProblem), and every
 * effect record object must be exactly the record its `effect_records` row holds (the row the
 * broker's decisions and recovery read). Mismatches are reported, never repaired.
 */
import {
  INTEGRITY_SCAN_OBJECT_PAGE,
  SEMANTIC_IDS,
  storedProblem,
  type EffectRecord,
} from '@world/contracts';
import type { IntegrityScan } from '@world/runtime';
import { effectRecordObject } from '../effects/effect-objects.js';
import type { IntegrityRepository, ScannedObject } from './integrity.repository.js';

/**
 * Scans the broker's objects.
 * @returns undefined when every object was checked, else what was left unchecked
 */
export async function scanBroker(
  repository: IntegrityRepository,
  scan: IntegrityScan,
): Promise<string | undefined> {
  let below: number | null = null;
  for (;;) {
    if (!scan.withinBudget())
      return below === null ? 'every object' : `the objects stored before #${below}`;
    const page = await repository.objectsBefore(below, INTEGRITY_SCAN_OBJECT_PAGE);
    if (page.length === 0) return undefined;
    for (const object of page) {
      scan.problem(storedProblem({ kind: 'object', ref: object.ref, payload: object.payload }));
      scan.problem(recordProblem(object));
    }
    scan.counted(page.length);
    below = page[page.length - 1]!.seq;
  }
}

/** An effect record object that is not what its `effect_records` row says, or has none. */
function recordProblem(object: ScannedObject): string | null {
  if (object.semanticId !== SEMANTIC_IDS.effectRecord) return null;
  if (object.record === null) return `effect record ${object.ref} has no effect_records row`;
  // The row's denial column is CHECK-constrained to the labels (db/schema.ts).
  const row = { ...object.record, denial: object.record.denial as EffectRecord['denial'] };
  const expected = effectRecordObject(row);
  return expected.hash === object.ref
    ? null
    : `effect record ${object.ref} differs from its effect_records row (which hashes to ${expected.hash})`;
}
