/** The daemon version GET /v1/health reports (world-spec §5.2, §10). */
export const DAEMON_VERSION = '0.1.0';
/** The name the MCP server introduces itself with. */
export const MCP_SERVER_NAME = 'world';
/** The service name: logs, replica ids, the RunningService. */
export const SERVICE_NAME = 'gateway';
