/**
 * MCP wire keys World's gateway serves and its CLI client sends (world-spec §6.2; DESIGN.md
 * §7.4; ecosystem.md §2.1). Both sides import these, so neither can drift from the other.
 */

/** The `params._meta` key of a `tools/call` that makes the call exactly-once (DESIGN.md §7.4). */
export const MCP_TASK_ID_META_KEY = 'world/taskId';

/**
 * The stateless MCP revision: served on the SDK's modern path by the gateway, pinned by the
 * CLI's client (ecosystem.md §2.1: "latest").
 */
export const MCP_MODERN_PROTOCOL_VERSION = '2026-07-28';
