/**
 * The tool registry (world-spec §3.0 summary table): the eight tools in table order, which is the
 * order tools/list and the A2A card show them.
 */
import { ailangCheck } from './ailang-check.js';
import { ailangCli } from './ailang-cli.js';
import { ailangEdit } from './ailang-edit.js';
import { ailangRead } from './ailang-read.js';
import { ailangRun } from './ailang-run.js';
import { ailangWrite } from './ailang-write.js';
import { builtinsSearch } from './builtins-search.js';
import { examplesSearch } from './examples-search.js';
import type { ToolDefinition } from './types.js';

/** Every tool, in the order of world-spec §3.0's summary table. */
export const TOOLS: readonly ToolDefinition[] = Object.freeze([
  ailangRead,
  ailangWrite,
  ailangEdit,
  ailangCheck,
  ailangRun,
  builtinsSearch,
  examplesSearch,
  ailangCli,
]);

const BY_ID = new Map(TOOLS.map((tool) => [tool.id, tool]));

/**
 * The tool with this id (= MCP tool name = A2A skill id), or undefined.
 * @internal exported for registry.spec.ts
 */
export function toolById(id: string): ToolDefinition | undefined {
  return BY_ID.get(id);
}
