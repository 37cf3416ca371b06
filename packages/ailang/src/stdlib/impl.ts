import { ADT_IMPLS } from './impl/adts.js';
import { FS_IMPLS, IO_IMPLS } from './impl/io-fs.js';
import { JSON_IMPLS } from './impl/json.js';
import { LIST_IMPLS } from './impl/lists.js';
import { MATH_IMPLS } from './impl/numbers.js';
import { OPERATOR_IMPLS } from './impl/operators.js';
import { SERVICE_IMPLS } from './impl/services.js';
import { STRING_IMPLS } from './impl/text.js';
import type { BuiltinImpl } from '../runtime/values.js';

/**
 * Implementations of every builtin of the registry (stdlib/registry.ts), keyed by registry
 * name. Effectful builtins first charge their effect (capability, then budget) through the
 * host; file builtins resolve paths through the sandbox.
 */
export const IMPLS: ReadonlyMap<string, BuiltinImpl> = new Map(
  Object.entries({
    ...IO_IMPLS,
    ...FS_IMPLS,
    ...STRING_IMPLS,
    ...LIST_IMPLS,
    ...MATH_IMPLS,
    ...OPERATOR_IMPLS,
    ...ADT_IMPLS,
    ...JSON_IMPLS,
    ...SERVICE_IMPLS,
  }),
);
