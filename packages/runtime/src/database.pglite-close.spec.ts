// Review finding (8b0d549), fixed: a named statement that passed PGlite's ready check before close()
// set its closing flag runs once close() frees the mutexes — interleaved with close()'s
// asynchronous teardown — and resolves with NO rows and NO error (its Bind/Execute/Sync reach a
// backend that is shutting down and answers nothing). PGlite.query (the unnamed path, and the
// named path before 8b0d549) rejects in the same race. A write (e.g. broker_lease_release) then
// reports "nothing matched" for a statement that never ran.
import { openPglite } from './database.js';

async function raceWithClose(name: string | undefined) {
  const handle = await openPglite();
  await handle.query('CREATE TABLE r (k int PRIMARY KEY)');
  // another flow's open transaction holds the mutexes, so close() waits before it flags closing
  const tx = handle.transaction(async () => {
    await new Promise((r) => setTimeout(r, 50));
  });
  const closing = handle.close();
  await new Promise((r) => setTimeout(r, 10));
  const late = handle.query('INSERT INTO r (k) VALUES ($1) RETURNING k', [1], name).then(
    (result) => ({ result }),
    (error: unknown) => ({ error }),
  );
  await Promise.all([tx, closing]);
  return late;
}

describe('a statement racing PGlite close()', () => {
  it('unnamed: rejects', async () => {
    const outcome = await raceWithClose(undefined);
    expect(outcome).toHaveProperty('error');
  });

  it('named (prepared): rejects too, never resolves with no rows', async () => {
    const outcome = (await raceWithClose('race_insert')) as { error?: Error };
    expect(outcome.error?.message).toBe('PGlite is closing');
  });
});
