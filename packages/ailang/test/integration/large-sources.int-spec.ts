import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AILANG_WORKER_STACK_MB } from '@world/contracts';
import { embeddedToolchain, renderPolicyToml } from '../../src/index.js';
import type { AilangContext } from '../../src/toolchain/types.js';
import { episodePolicy } from '../helpers/programs.js';

/**
 * Large sources through the embedded toolchain's workers (256 MiB heap, 64 MiB stack) under the
 * broker's 10 s handler deadline: the programs a new user tried — 5,000 lets, a 50,000-term sum,
 * a 60,000-element list literal — check and run.
 */

const program = (name: string, body: string): string =>
  [
    `module ${name}`,
    'import std/io (println)',
    'import std/list (length)',
    'export func main() -> () ! {IO} {',
    body,
    '}',
    '',
  ].join('\n');

const PROGRAMS: Record<string, string> = {
  'lets.ail': program(
    'lets',
    `${Array.from({ length: 5000 }, (_, i) => `  let x${i} = ${i};`).join('\n')}\n  println(show(x4999 + x1))`,
  ),
  'sum.ail': program(
    'sum',
    `  println(show(${Array.from({ length: 50_000 }, () => '1').join(' + ')}))`,
  ),
  'deep.ail': program(
    'deep',
    `  println(show(${Array.from({ length: 150_000 }, () => '1').join(' + ')}))`,
  ),
  'list.ail': program(
    'list',
    `  println(show(length([${Array.from({ length: 60_000 }, (_, i) => String(i)).join(', ')}])))`,
  ),
};

describe('large sources through the embedded toolchain', () => {
  const tc = embeddedToolchain();
  let root: string;
  let ctx: AilangContext;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'ailang-large-'));
    const worktree = join(root, 'ws', 'ep1');
    mkdirSync(worktree, { recursive: true });
    mkdirSync(join(root, 'policies'));
    for (const [f, text] of Object.entries(PROGRAMS)) writeFileSync(join(worktree, f), text);
    const policy = episodePolicy(worktree);
    const policyPath = join(root, 'policies', 'ep1.toml');
    writeFileSync(policyPath, renderPolicyToml(policy));
    ctx = { worktree, policy, policyPath, runAllowCaps: [], netAllow: [], deadlineMs: 10_000 };
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it.each([
    ['lets.ail', '5000\n'],
    ['sum.ail', '50000\n'],
    ['list.ail', '60000\n'],
  ])('checks and runs %s', async (path, printed) => {
    const check = await tc.aiCheck(ctx, { path });
    expect([check.ok, check.exit_code, JSON.parse(check.stdout as string).check]).toEqual([
      true,
      0,
      { passed: true, error_count: 0, errors: [] },
    ]);
    const run = await tc.run(ctx, { path, caps: ['IO'] });
    expect([run.admitted, run.exit_code, run.limit, run.stdout]).toEqual([true, 0, null, printed]);
  });

  it('refuses a 150,000-term sum deeper than the worker stack with LIMIT001, in check and run', async () => {
    const message = `the program nests too deeply for the embedded AILANG checker: it ran out of call stack (the embedded toolchain's worker thread has ${AILANG_WORKER_STACK_MB} MiB)`;
    const check = await tc.aiCheck(ctx, { path: 'deep.ail' });
    expect([check.exit_code, JSON.parse(check.stdout as string).check.errors]).toEqual([
      1,
      [
        {
          code: 'LIMIT001',
          message,
          file: 'deep.ail',
          suggestion:
            'split the deep expression into let bindings or helper functions (a long `a + b + …` chain or deeply nested calls)',
        },
      ],
    ]);
    const run = await tc.run(ctx, { path: 'deep.ail', caps: ['IO'] });
    expect([run.admitted, run.exit_code, run.decision]).toEqual([
      false,
      2,
      { ok: false, error_kind: 'typecheck_failed', message },
    ]);
  });
});
