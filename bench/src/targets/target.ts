/**
 * What a scenario needs from the system under test, whichever it is: the MCP endpoint, the
 * processes to watch, credentials for N clients, and (World only) the log head.
 */
import type { BenchProcess } from '../proc.js';

/** The systems of a run (issue 7; the floor: issue 19). */
export type TargetKind = 'baseline' | 'floor' | 'floor-single' | 'distributed' | 'embedded';

/** One client's credentials: the headers it sends, and for World its episode and session. */
export interface ClientCredential {
  headers: Record<string, string>;
  episodeId?: string;
  token?: string;
  credentialId?: string;
}

/** A started system. */
export interface Target {
  kind: TargetKind;
  /** the MCP endpoint, e.g. http://127.0.0.1:40123/mcp */
  mcpUrl: string;
  /** the HTTP origin, e.g. http://127.0.0.1:40123 */
  baseUrl: string;
  /** every process of the system, for RSS (World's services by service name) */
  processes: BenchProcess[];
  /**
   * Credentials for `n` clients. World: one fresh episode per client (its worktree holds the
   * 2 KiB file) and one session each with an ample budget; with `sharedEpisode`, one episode and
   * `n` sessions on it. The baseline needs none: `n` empty header sets.
   * @param label a lowercase tag for episode ids (`c8`, `contention`, …)
   */
  clients(
    n: number,
    label: string,
    options?: { sharedEpisode?: boolean },
  ): Promise<ClientCredential[]>;
  /**
   * The processes whose CPU time is accounted per call: `processes`, plus (distributed) the
   * PostgreSQL backends serving the run's database, all named `postgres`.
   */
  watched(): Promise<Array<{ name: string; pid: number }>>;
  /** The log head's entryIndex (World), or null (baseline). */
  headIndex(): Promise<number | null>;
  close(): Promise<void>;
}
