import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { embeddedToolchain } from '../../src/index.js';
import { renderPolicyToml } from '../../src/policy/policy.js';
import type { AilangContext } from '../../src/toolchain/types.js';
import { episodePolicy } from '../helpers/programs.js';

/**
 * The acceptance corpus (ailang.md §5.5 item 5): every program under corpus/ is checked
 * (ai_check) and run under the episode policy through the embedded toolchain; stdout, stderr,
 * exit code, decision, limit and the ai-check report must equal the golden file. Paths and the
 * policy digest, which depend on the temporary worktree, are normalised to <worktree>,
 * <policies> and <digest>. UPDATE_GOLDEN=1 rewrites the expectations (review the diff).
 */

const corpusDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'corpus');

interface Golden {
  input: {
    stdin?: string;
    argv?: string[];
    caps?: string[];
    args_json?: string;
    files?: Record<string, string>;
    timeout_ms?: number;
    runAllowCaps?: string[];
  };
  expected: unknown;
}

const programs = readdirSync(corpusDir)
  .filter((f) => f.endsWith('.ail'))
  .map((f) => f.slice(0, -'.ail'.length))
  .sort();

function listFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? listFiles(full) : [full];
  });
}

describe('the AILANG corpus under the embedded toolchain (golden outputs)', () => {
  const tc = embeddedToolchain();
  let root: string;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'ailang-corpus-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('holds at least 15 programs, each with a golden file', () => {
    expect(programs.length).toBeGreaterThanOrEqual(15);
    for (const p of programs)
      expect(statSync(join(corpusDir, `${p}.golden.json`)).isFile()).toBe(true);
  });

  it.each(programs)('%s', async (name) => {
    const goldenPath = join(corpusDir, `${name}.golden.json`);
    const golden = JSON.parse(readFileSync(goldenPath, 'utf8')) as Golden;
    const input = golden.input;
    const worktree = join(root, name, 'ws', 'ep1');
    const policies = join(root, name, 'policies');
    mkdirSync(worktree, { recursive: true });
    mkdirSync(policies, { recursive: true });
    const file = `${name}.ail`;
    writeFileSync(join(worktree, file), readFileSync(join(corpusDir, file)));
    for (const [rel, text] of Object.entries(input.files ?? {})) {
      mkdirSync(dirname(join(worktree, rel)), { recursive: true });
      writeFileSync(join(worktree, rel), text);
    }
    const before = new Set(listFiles(worktree));
    const policy = episodePolicy(
      worktree,
      input.timeout_ms !== undefined ? { timeout_ms: input.timeout_ms } : {},
    );
    const policyPath = join(policies, 'ep1.toml');
    writeFileSync(policyPath, renderPolicyToml(policy));
    const ctx: AilangContext = {
      worktree,
      policy,
      policyPath,
      runAllowCaps: input.runAllowCaps ?? [],
      netAllow: [],
      deadlineMs: 10_000,
    };

    const check = await tc.aiCheck(ctx, { path: file });
    const payload: Record<string, unknown> = { path: file };
    if (input.args_json !== undefined) payload.args_json = input.args_json;
    if (input.stdin !== undefined) payload.stdin = input.stdin;
    if (input.argv !== undefined) payload.argv = input.argv;
    if (input.caps !== undefined) payload.caps = input.caps;
    const run = await tc.run(ctx, payload);

    const written: Record<string, string> = {};
    for (const f of listFiles(worktree))
      if (!before.has(f)) written[relative(worktree, f)] = readFileSync(f, 'utf8');

    const digest = (run.policy as { digest: string }).digest;
    const actual = JSON.parse(
      JSON.stringify({
        check: { exit_code: check.exit_code, report: JSON.parse(check.stdout as string) },
        run,
        written,
      })
        .split(worktree)
        .join('<worktree>')
        .split(policies)
        .join('<policies>')
        .split(digest)
        .join('<digest>'),
    ) as unknown;

    if (process.env.UPDATE_GOLDEN === '1') {
      writeFileSync(goldenPath, `${JSON.stringify({ input, expected: actual }, null, 2)}\n`);
    }
    expect(actual).toEqual(golden.expected);
  });
});
