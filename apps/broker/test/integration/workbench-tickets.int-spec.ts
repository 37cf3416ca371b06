/**
 * `broker.workbench.ticket.consume` over the broker's real PostgreSQL: a workbench login ticket's
 * nonce is recorded once, whichever gateway replica asks first (README "The workbench"), and
 * nonces of expired tickets are dropped.
 */
import { BadRequestError } from '@world/contracts';
import { MODES, RPC_TIMEOUT_MS, startHarness, type Harness } from '../support/harness.js';

const opts = { timeoutMs: RPC_TIMEOUT_MS };

describe.each(MODES)('workbench tickets over %s', (_name, mode) => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness(mode);
  });
  afterAll(async () => {
    await h.close();
  });

  const consume = (nonce: string, expiresAt: number) =>
    h.rpc.request('broker.workbench.ticket.consume', { nonce, expiresAt }, opts);

  it('records a nonce once: of 8 racing exchanges exactly one consumes it', async () => {
    const nonce = 'a'.repeat(32);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => consume(nonce, Date.now() + 60_000)),
    );
    expect(answers.filter((a) => a.consumed)).toHaveLength(1);
    expect(await consume(nonce, Date.now() + 60_000)).toEqual({ consumed: false });
    expect(
      await h.rows<{ nonce: string }>(
        `SELECT nonce FROM broker.workbench_tickets WHERE nonce = '${nonce}'`,
      ),
    ).toEqual([{ nonce }]);
  });

  it('drops the nonces of expired tickets', async () => {
    const old = 'b'.repeat(32);
    expect(await consume(old, Date.now() - 1)).toEqual({ consumed: true });
    expect(await consume('c'.repeat(32), Date.now() + 60_000)).toEqual({ consumed: true });
    expect(
      await h.rows(`SELECT nonce FROM broker.workbench_tickets WHERE nonce = '${old}'`),
    ).toEqual([]);
  });

  it('refuses a nonce that is not 32 hex', async () => {
    await expect(consume('not hex', Date.now())).rejects.toBeInstanceOf(BadRequestError);
  });
});
