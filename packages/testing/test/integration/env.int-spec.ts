import pg from 'pg';
import { createTestDatabase, startNode } from '../../src/index.js';

describe('test infrastructure against the real services', () => {
  it('creates an empty database per test file and drops it', async () => {
    const db = await createTestDatabase('infra');
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const { rows } = await client.query<{ db: string }>('SELECT current_database() AS db');
    await client.end();
    expect(rows[0]!.db).toBe(db.name);
    await db.drop();
    const again = new pg.Client({ connectionString: db.url });
    await expect(again.connect()).rejects.toThrow(`database "${db.name}" does not exist`);
  });

  it('captures a child process line by line', async () => {
    const child = startNode('-e', ["console.log('ready'); console.error('second')"], {});
    await expect(child.waitForLine(/^ready$/)).resolves.toBe('ready');
    expect(await child.exited).toEqual({ code: 0, signal: null });
    expect(child.lines).toEqual(['ready', 'second']);
  });
});
