/**
 * An effect whose output could not be committed never runs and then goes unrecorded
 * (DESIGN.md §1): the planner adds the world block to a handler's output, so the handler
 * output is capped below the invocation output cap (HANDLER_OUTPUT_MAX_BYTES) and ailang-read
 * below that (READ_CONTENT_MAX_BYTES). Reads of files just under 1 MiB — whose handler output
 * fitted the old 1 MiB cap but whose composed output did not — are answered with a committed
 * refusal, never with a host failure after the read ran. On real PostgreSQL and NATS.
 */
import { READ_CONTENT_MAX_BYTES } from '@world/contracts';
import { FULL_GRANTS, startTestSystem, type TestSystem } from '../support/system.js';

/** File sizes from 25 to 400 bytes under 1 MiB, around where the world block tipped the output over. */
const SIZES = Array.from({ length: 16 }, (_, i) => 1_048_576 - 25 * (i + 1));

describe('ailang-read of a file whose output could not be committed', () => {
  let w: TestSystem;
  let token: string;

  beforeAll(async () => {
    w = await startTestSystem('distributed');
    await w.episode('big', Object.fromEntries(SIZES.map((n) => [`f${n}.txt`, 'a'.repeat(n)])));
    token = await w.session('big', FULL_GRANTS);
  }, 60_000);
  afterAll(async () => {
    await w?.close();
  });

  it('answers every one with a committed refusal naming the limit, never a host failure', async () => {
    const answers = [];
    for (const n of SIZES) {
      const a = await w.mcp(token, 'tools/call', {
        name: 'ailang-read',
        arguments: { path: `f${n}.txt` },
      });
      const out = a.body?.result?.structuredContent as Record<string, unknown> | undefined;
      answers.push(a.body?.error ?? [out?.ok, out?.refused]);
    }
    expect(answers).toEqual(
      SIZES.map((n) => [
        false,
        `read f${n}.txt: file is ${n} bytes; at most ${READ_CONTENT_MAX_BYTES} can be read`,
      ]),
    );
    // Each read is one committed entry (genesis + the reads).
    const head = await w.get('/v1/head');
    expect(head.status).toBe(200);
    const log = await w.get(`/v1/log?from=0&limit=500`);
    expect(log.json.items.length).toBe(1 + SIZES.length);
  }, 120_000);
});
