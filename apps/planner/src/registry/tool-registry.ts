import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { makeJsonObject, makeObject, type Ref, type WorldObject } from '@world/canonical';
import { SEMANTIC_IDS, type SessionGrant, type ToolDescriptor } from '@world/contracts';
import { COMMON_SOURCE_URL, TOOLS, type ToolDefinition } from '@world/tools';
import { admits } from '../admission/admits.js';
import { canonicalSource } from './transition-source.js';
import { interpreterObject } from './interpreter.js';

/**
 * A tool's transition source: the canonical text of its own module followed by the shared
 * checks' module (packages/tools common), so either changing changes its transitionFn.
 * @internal exported for tool-registry.spec.ts
 */
export function transitionSource(definition: ToolDefinition): string {
  const read = (url: string) => canonicalSource(readFileSync(fileURLToPath(url), 'utf8'));
  return `${read(definition.sourceUrl)}${read(COMMON_SOURCE_URL)}`;
}

/** The semantics epoch every descriptor of this release carries (world-spec §2.17). */
const SEMANTICS_EPOCH = 1;
const PROVENANCE = 'planner';

/** A registered tool: its served descriptor and its pure code. */
export interface RegisteredTool {
  descriptor: ToolDescriptor;
  definition: ToolDefinition;
  /** the `world/transition-source/v1` object whose hash is `descriptor.transitionFn` */
  source: WorldObject;
}

/**
 * The transition registry: every tool of packages/tools with its transitionFn (hash of the
 * canonical text of the module that holds its plan/finish code) and the planner's interpreter
 * ref (DESIGN.md §4). Built once at start; registry order is the tools' declaration order.
 */
export class ToolRegistry {
  readonly tools: RegisteredTool[];
  readonly interpreter: WorldObject;
  readonly interpreterText: string;
  /** the `world/transition-registry/v1` object listing every descriptor, in order */
  readonly registryObject: WorldObject;
  private readonly byId: Map<string, RegisteredTool>;

  constructor(definitions: readonly ToolDefinition[] = TOOLS) {
    const { object, text } = interpreterObject();
    this.interpreter = object;
    this.interpreterText = text;
    this.tools = definitions.map((definition) => {
      const source = makeObject(
        SEMANTIC_IDS.transitionSource,
        PROVENANCE,
        Buffer.from(transitionSource(definition), 'utf8'),
      );
      const descriptor: ToolDescriptor = {
        id: definition.id,
        title: definition.title,
        description: definition.description,
        inputSchema: definition.inputSchema,
        outputSchema: definition.outputSchema,
        access: definition.access,
        declaredEffects: definition.declaredEffects,
        transitionFn: source.hash,
        interpreter: object.hash,
        semanticsEpoch: SEMANTICS_EPOCH,
        finish: definition.finish,
      };
      return { descriptor, definition, source };
    });
    this.byId = new Map(this.tools.map((t) => [t.descriptor.id, t]));
    this.registryObject = makeJsonObject(SEMANTIC_IDS.transitionRegistry, PROVENANCE, {
      descriptors: this.tools.map((t) => t.descriptor),
    });
  }

  /**
   * The objects every descriptor names, to archive with the registry head: each distinct
   * transition source (`transitionFn`) and the interpreter, so every entry's header refs
   * resolve in the ledger alone, with no service's code at hand (DESIGN.md §4).
   */
  archivedObjects(): WorldObject[] {
    const byHash = new Map<string, WorldObject>([[this.interpreter.hash, this.interpreter]]);
    for (const t of this.tools) byHash.set(t.source.hash, t.source);
    return [...byHash.values()];
  }

  get interpreterRef(): Ref {
    return this.interpreter.hash;
  }

  /** The tool with this id, or undefined. */
  get(id: string): RegisteredTool | undefined {
    return this.byId.get(id);
  }

  /**
   * The descriptors a session's live grants admit, in registry order (world-spec §2.7
   * "Visibility/admission"; the same function feeds MCP tools/list and the A2A card).
   */
  visible(grants: readonly SessionGrant[], now: number): ToolDescriptor[] {
    return this.tools
      .filter((t) => admits(t.descriptor.access, grants, now))
      .map((t) => t.descriptor);
  }
}
