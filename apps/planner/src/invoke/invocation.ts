import type { WorldObject } from '@world/canonical';
import type { ParsedRequestOf } from '@world/contracts';
import { EPISODE_ATTRIBUTE, INVOCATION_ATTRIBUTE } from '@world/runtime';
import type { RegisteredTool } from '../registry/tool-registry.js';

/** One admitted call as every step of InvokeTool sees it (AdmitCall makes it). */
export interface Invocation {
  req: ParsedRequestOf<'planner.invoke'>;
  tool: RegisteredTool;
  /** `<surface>:<episode>:<task>` (world-spec §10) */
  invocationId: string;
  /** a caller key was given: the invocation is claimed in the ledger and exactly-once */
  keyed: boolean;
  /** the claim's token once claimed (keyed calls): it fences the commit and the end */
  claimToken?: string;
  /** `coordinator:<surface>` */
  writtenBy: string;
  /** epoch ms when the planner took the call */
  started: number;
  /** epoch ms by which the call answers: started + the deadline table's total */
  deadline: number;
  /** the invocation input object: canonical `arguments ?? null` */
  input: WorldObject;
}

/**
 * The World ids a call's spans carry (never its arguments or results): invocation id, episode,
 * tool (OpenTelemetry GenAI conventions name the tool `gen_ai.tool.name`).
 */
export function spanIds(inv: Invocation): Record<string, string> {
  return {
    [INVOCATION_ATTRIBUTE]: inv.invocationId,
    [EPISODE_ATTRIBUTE]: inv.req.session.episodeId,
    'gen_ai.tool.name': inv.tool.descriptor.id,
  };
}
