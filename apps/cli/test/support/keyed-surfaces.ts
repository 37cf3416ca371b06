/**
 * The gateways' keyed call surfaces (README "Exactly-once over MCP"; world-spec §4.5, §6.5): A2A
 * `tasks/send` and MCP `tools/call` with `_meta["world/taskId"]`, as the exactly-once suites run
 * one case each on them.
 */
import type { JsonRpcAnswer, UpWorld } from './up-world.js';

/** One keyed surface, sent through a `startUpWorld` World. */
export interface KeyedSurface {
  /** what the test titles call it */
  name: string;
  /** the invocation id's first part: `<tag>:<episode id>:<task id>` */
  tag: 'a2a' | 'mcp';
  /** the JSON-RPC id of `UpWorld.tasksSend` (7) or `UpWorld.mcpCall` (9), which answers carry */
  id: number;
  /** `UpWorld.tasksSend` or `UpWorld.mcpCall` of `w` with these arguments */
  send(w: UpWorld, ...call: Parameters<UpWorld['tasksSend']>): Promise<JsonRpcAnswer>;
  /** the log entry index a committed answer names (A2A metadata, MCP `_meta`) */
  entryOf(answer: JsonRpcAnswer): number | undefined;
}

const SURFACES: readonly KeyedSurface[] = [
  {
    name: 'A2A tasks/send',
    tag: 'a2a',
    id: 7,
    send: (w, ...call) => w.tasksSend(...call),
    entryOf: (a) => a.result?.metadata?.entry_index as number | undefined,
  },
  {
    name: 'MCP tools/call with world/taskId',
    tag: 'mcp',
    id: 9,
    send: (w, ...call) => w.mcpCall(...call),
    entryOf: (a) => a.result?._meta?.['world/entryIndex'] as number | undefined,
  },
];

/**
 * `it.each` rows, one a surface: `[name, surface, index]` (a title's `%s` is the name; the index
 * tells the cases' episodes apart).
 */
export const KEYED_CASES = SURFACES.map((s, i) => [s.name, s, i] as const);

/** The invocation id of task `taskId` of episode `episodeId` sent through `surface`. */
export const invocationIdOf = (surface: KeyedSurface, episodeId: string, taskId: string) =>
  `${surface.tag}:${episodeId}:${taskId}`;
