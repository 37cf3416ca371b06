import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { WorldObject } from '@world/canonical';
import {
  BadRequestError,
  INVOCATION_INPUT_MAX_BYTES,
  MCP_TASK_ID_BYTES,
  SEMANTIC_IDS,
  TransitionPinMismatchError,
  UnknownToolError,
  invocationIdOf,
  writtenByFor,
  type ParsedRequestOf,
} from '@world/contracts';
import { admits } from '../admission/admits.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { PLANNER_SETTINGS, type PlannerSettings } from '../settings.js';
import type { Invocation } from './invocation.js';
import { jsonObject } from './json-object.js';

/**
 * The first step of a call: nothing is claimed, planned or run before it passes. The tool must
 * be registered and admitted by the session's grants (admits: the same function as
 * `planner.tools.list`, world-spec §6), a pinned transition must be the registered one
 * (world-spec §6.5), and the arguments must be JSON of at most INVOCATION_INPUT_MAX_BYTES
 * canonical bytes (world-spec §10).
 */
@Injectable()
export class AdmitCall {
  constructor(
    private readonly registry: ToolRegistry,
    @Inject(PLANNER_SETTINGS) private readonly settings: PlannerSettings,
  ) {}

  /**
   * @param started epoch ms when the planner took the call (grants are judged at it)
   * @returns the admitted invocation: a fresh random task id when the caller gave none
   * @throws UnknownToolError (not registered, or outside the session's surface),
   *   TransitionPinMismatchError, BadRequestError (arguments not JSON, or too large)
   */
  execute(req: ParsedRequestOf<'planner.invoke'>, started: number): Invocation {
    const tool = this.registry.get(req.toolId);
    if (tool === undefined || !admits(tool.descriptor.access, req.session.grants, started))
      throw new UnknownToolError(req.toolId);
    if (req.transitionFn !== undefined && req.transitionFn !== tool.descriptor.transitionFn)
      throw new TransitionPinMismatchError();
    const writtenBy = writtenByFor(req.surface);
    let input: WorldObject;
    try {
      input = jsonObject(SEMANTIC_IDS.invocationInput, writtenBy, req.arguments ?? null);
    } catch {
      throw new BadRequestError('arguments are not JSON');
    }
    if (input.payload.length > INVOCATION_INPUT_MAX_BYTES) {
      throw new BadRequestError(
        `arguments are ${input.payload.length} bytes; the limit is ${INVOCATION_INPUT_MAX_BYTES}`,
      );
    }
    const taskId = req.taskId ?? randomBytes(MCP_TASK_ID_BYTES).toString('hex');
    return {
      req,
      tool,
      invocationId: invocationIdOf(req.surface, req.session.episodeId, taskId),
      keyed: req.taskId !== undefined,
      writtenBy,
      started,
      deadline: started + this.settings.deadlines.totalMs,
      input,
    };
  }
}
