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
  ) {}

  static async open(adminUrl: string, database: string): Promise<PgSampler> {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    return new PgSampler(client, database);
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
