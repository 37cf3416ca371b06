/**
 * The shapes of the ledger's log reads beyond the frozen entry (world-spec §5.7, §7.3): an entry
 * served flagged instead of refused, and the lookup of the entry a `world why` target names.
 */
import { z } from 'zod';
import { LogEntrySchema, NonNegInt, RefSchema } from './schemas.js';
import { ReadScopeSchema } from './visibility.js';

/**
 * A log entry as a read serves it. With `flagged` asked, an entry whose fields do not hash to its
 * stored entry hash is served with `corrupt` (the problem, contracts storedProblem) instead of
 * refused, so a page can show it marked ✗ (DESIGN.md §3: never as valid); without it such an
 * entry is refused (StoredObjectCorrupt).
 */
export const FlaggedEntrySchema = LogEntrySchema.extend({ corrupt: z.string().optional() });

/**
 * The roles in which an invocation entry names a ref (`world why <ref>`, world-spec §7.3):
 * `record` its transitionRef; the record's input, output and plan; an effect record of it; an
 * effect record's request or result.
 */
export const REF_ROLES = [
  'record',
  'input',
  'output',
  'plan',
  'effect',
  'request',
  'result',
] as const;
export type RefRole = (typeof REF_ROLES)[number];

/**
 * `ledger.log.locate`: the newest entry that names `ref` in one of `roles`, or the entry of
 * invocation id `invocationId` (its record's invocationId); one of the two.
 */
export const LedgerLocateRequest = z.union([
  z.object({
    scope: ReadScopeSchema,
    ref: RefSchema,
    roles: z.array(z.enum(REF_ROLES)).min(1),
  }),
  z.object({ scope: ReadScopeSchema, invocationId: z.string().min(1) }),
]);
export const LedgerLocateReply = z.object({ entryIndex: NonNegInt.nullable() });
