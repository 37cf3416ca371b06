/**
 * A poor man's statement profiler for PostgreSQL without pg_stat_statements (not preloaded on
 * the machine's server): samples pg_stat_activity of the run's database every few ms and counts,
 * per statement text, how often a backend was seen running it and on what it waited. The share
 * of samples a statement takes is the share of database busy time it costs.
 */
import pg from 'pg';

/** How often pg_stat_activity is sampled, ms. */
const SAMPLE_MS = 5;

/** One statement's share of the samples. */
export interface StatementSamples {
  query: string;
  /** samples in which a backend was running it */
  active: number;
  /** of those, per wait event (`CPU` when none) */
  waits: Record<string, number>;
}

/** Samples a database's activity until stopped. */
export class PgSampler {
  private readonly counts = new Map<string, StatementSamples>();
  private samples = 0;
  private running = false;
  private loop: Promise<void> | undefined;

  private constructor(
    private readonly client: pg.Client,
    private readonly database: string,
    private readonly databaseUrl: string,
  ) {}

  /** @param adminUrl where pg_stat_activity is read; @param databaseUrl the run's database */
  static async open(adminUrl: string, databaseUrl: string): Promise<PgSampler> {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    return new PgSampler(client, new URL(databaseUrl).pathname.slice(1), databaseUrl);
  }

  start(): void {
    this.counts.clear();
    this.samples = 0;
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        const { rows } = await this.client.query<{ query: string; wait: string | null }>(
          `SELECT query, wait_event_type || ':' || wait_event AS wait FROM pg_stat_activity
           WHERE datname = $1 AND state = 'active' AND pid <> pg_backend_pid()`,
          [this.database],
        );
        this.samples++;
        for (const r of rows) {
          const key = r.query.replace(/\s+/g, ' ').trim();
          const s = this.counts.get(key) ?? { query: key, active: 0, waits: {} };
          s.active++;
          const wait = r.wait ?? 'CPU';
          s.waits[wait] = (s.waits[wait] ?? 0) + 1;
          this.counts.set(key, s);
        }
        await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
      }
    })();
  }

  /** Stops sampling; returns the statements by samples, most first, and the sample count. */
  async stop(): Promise<{ samples: number; statements: StatementSamples[] }> {
    this.running = false;
    await this.loop;
    return {
      samples: this.samples,
      statements: [...this.counts.values()].sort((a, b) => b.active - a.active),
    };
  }

  /**
   * Counters of the database at one moment: transactions committed and rolled back
   * (pg_stat_database), and per table rows inserted/updated and index/sequential scans
   * (pg_stat_user_tables). Two snapshots give the work per call.
   */
  async counters(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    const db = await this.client.query<{ xact_commit: string; xact_rollback: string }>(
      'SELECT xact_commit, xact_rollback FROM pg_stat_database WHERE datname = $1',
      [this.database],
    );
    out['transactions committed'] = Number(db.rows[0]?.xact_commit ?? 0);
    out['transactions rolled back'] = Number(db.rows[0]?.xact_rollback ?? 0);
    // pg_stat_user_tables is per database: read it through a connection to the run's database.
    const c = new pg.Client({ connectionString: this.databaseUrl });
    await c.connect();
    try {
      const { rows } = await c.query<{
        t: string;
        ins: string;
        upd: string;
        idx: string | null;
        seq: string;
      }>(
        `SELECT schemaname || '.' || relname AS t, n_tup_ins AS ins, n_tup_upd AS upd, idx_scan AS idx, seq_scan AS seq FROM pg_stat_user_tables`,
      );
      for (const r of rows) {
        out[`${r.t} inserted`] = Number(r.ins);
        out[`${r.t} updated`] = Number(r.upd);
        out[`${r.t} index scans`] = Number(r.idx ?? 0);
        out[`${r.t} seq scans`] = Number(r.seq);
      }
    } finally {
      await c.end();
    }
    return out;
  }

  /** Runs EXPLAIN (ANALYZE, BUFFERS) of `sql` in the run's database, inside a rolled-back transaction. */
  static async explain(databaseUrl: string, sql: string, params: unknown[] = []): Promise<string> {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN (ANALYZE, BUFFERS) ${sql}`,
        params,
      );
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    } finally {
      await client.query('ROLLBACK').catch(() => undefined);
      await client.end();
    }
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}
