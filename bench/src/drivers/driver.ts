/** What every driver hands back for one measured window. */
export interface DriverResult {
  /** one latency per successful call, milliseconds */
  latenciesMs: number[];
  /** failed calls (transport error, non-2xx, JSON-RPC error, or a result that is not ok) */
  errors: number;
  /** the measured window, milliseconds */
  wallMs: number;
  /** the first failure's text, for the report */
  firstError?: string;
  /** calls answered in the measured window, whatever the answer */
  completed: number;
  /** calls answered during the warm-up */
  warmup: number;
}

/** The two ways a run drives the servers (issue 7). */
export type DriverName = 'mcp-client' | 'http';
/** Both drivers, in the order every target runs and reports them. */
export const DRIVERS: readonly DriverName[] = ['http', 'mcp-client'];

/** The tools/call every driver sends: ailang-read of the fixture file. */
export function toolCallParams(path: string) {
  return { name: 'ailang-read', arguments: { path } };
}
