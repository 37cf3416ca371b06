import { readFileSync } from 'node:fs';
import { canonicalBytes, refOf, type Ref } from '@world/canonical';

/** The broker package's version (apps/broker/package.json; src/ and dist/ sit at the same depth). */
const BROKER_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

/**
 * The `tool` ref the broker's own handlers stamp on their outputs (world-spec §3.0): the ref of
 * canonical JSON `{"handler":"world-broker","version":<package version>}`.
 */
export const BROKER_TOOL_REF: Ref = refOf(
  canonicalBytes({ handler: 'world-broker', version: BROKER_VERSION }),
);
