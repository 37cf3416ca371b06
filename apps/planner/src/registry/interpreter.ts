import { readFileSync } from 'node:fs';
import { makeJsonObject, type WorldObject } from '@world/canonical';
import { SEMANTIC_IDS } from '@world/contracts';

/** The planner's runtime identity: what "interpreted" a transition (DESIGN.md §4). */
export interface InterpreterIdentity {
  name: string;
  version: string;
  node: string;
}

const PROVENANCE = 'planner';

/** Reads the planner package's name and version next to this module (src/ or dist/). */
function packageIdentity(): { name: string; version: string } {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    name: string;
    version: string;
  };
  return { name: pkg.name, version: pkg.version };
}

/**
 * The interpreter object: `world/interpreter/v1` over {name, version, node}. Its hash is every
 * coordinator entry's `header.interpreter`; stable across restarts of the same build and Node.
 */
export function interpreterObject(
  identity: InterpreterIdentity = { ...packageIdentity(), node: process.version },
): {
  object: WorldObject;
  text: string;
} {
  return {
    object: makeJsonObject(SEMANTIC_IDS.interpreter, PROVENANCE, identity),
    text: `${identity.name} ${identity.version} (node ${identity.node})`,
  };
}
