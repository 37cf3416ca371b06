import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import {
  AILANG_MAX_RECURSION_DEPTH,
  AILANG_NET_MAX_RESPONSE_BYTES,
  AILANG_NET_REQUEST_TIMEOUT_MS,
} from '@world/contracts';
import { dirname, join } from 'node:path';
import { checkProgram, ReadFailure, type CheckResult } from '../../src/lang/program.js';
import { execute } from '../../src/policy/execute.js';
import { effectivePolicy, type EffectivePolicy, type RunPolicy } from '../../src/policy/policy.js';
import type { AilangPolicy } from '../../src/toolchain/types.js';

/** Test helpers: temporary worktrees, in-memory checks and in-thread runs of small programs. */

/** Checks sources held in memory. */
export function checkSources(files: Record<string, string>, entry: string): CheckResult {
  return checkProgram(entry, {
    read(rel: string): string {
      const s = files[rel];
      if (s === undefined) throw new ReadFailure(`open ${rel}: no such file or directory`);
      return s;
    },
  });
}

/** A temporary worktree holding `files`; `cleanup()` removes it. */
export function tempWorktree(files: Record<string, string> = {}): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'ailang-wt-'));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The episode policy World renders (world-spec §7.6), for a worktree. */
export function episodePolicy(
  worktree: string,
  overrides: Partial<AilangPolicy> = {},
): AilangPolicy {
  return {
    security_mode: 'restricted',
    allowed_caps: ['IO', 'FS'],
    fs_sandbox: worktree,
    timeout_ms: 8000,
    fs_deny_write: [
      '.github/**',
      '.pi/**',
      '.claude/**',
      '.ailang/**',
      '.gitmodules',
      '.gitattributes',
    ],
    entry: 'main',
    budgets: { FS: 1000 },
    ...overrides,
  };
}

/** An effective policy for in-thread runs. */
export function testPolicy(worktree: string, overrides: Partial<RunPolicy> = {}): EffectivePolicy {
  return effectivePolicy(
    { ...episodePolicy(worktree), ...overrides },
    '/policies/ep.toml',
    '0'.repeat(64),
  );
}

/** What an in-thread run produced. */
export interface RunResult {
  admitted: boolean;
  exitCode: number | null;
  stdout: string;
  stderr: string;
  decisionStdout: string;
  limit: boolean;
}

/**
 * Runs `entry` of a worktree in this thread (no worker, no timeout): for semantics tests of
 * programs that terminate and stay shallow.
 */
export function runInThread(
  worktree: string,
  entry: string,
  o: {
    stdin?: string;
    argv?: string[];
    argsJson?: string | null;
    policy?: Partial<RunPolicy>;
  } = {},
): RunResult {
  let stdout = '';
  let stderr = '';
  let admitted = false;
  let decisionStdout = '';
  const result = execute(
    {
      worktree,
      file: entry,
      policy: testPolicy(worktree, o.policy),
      stdin: o.stdin ?? '',
      argv: o.argv ?? [],
      argsJson: o.argsJson ?? null,
      env: { PATH: '/usr/bin:/bin', LANG: 'C' },
      maxRecursionDepth: AILANG_MAX_RECURSION_DEPTH,
      net: {
        timeoutMs: AILANG_NET_REQUEST_TIMEOUT_MS,
        maxResponseBytes: AILANG_NET_MAX_RESPONSE_BYTES,
      },
    },
    {
      decision: (d) => {
        admitted = d.admitted;
        if (!d.admitted) decisionStdout = d.stdout;
      },
      stdout: (s) => (stdout += s),
      stderr: (s) => (stderr += s),
    },
  );
  return {
    admitted,
    exitCode: result.kind === 'output_limit' ? null : result.exitCode,
    stdout,
    stderr,
    decisionStdout,
    limit: result.kind === 'output_limit',
  };
}

/** Runs one source file named `<module>.ail` in a fresh worktree. */
export function runProgram(
  source: string,
  o: Parameters<typeof runInThread>[2] & { files?: Record<string, string> } = {},
): RunResult {
  const name = /^module\s+(\S+)/.exec(source)?.[1] ?? 'main';
  const wt = tempWorktree({ ...o.files, [`${name}.ail`]: source });
  try {
    return runInThread(wt.dir, `${name}.ail`, o);
  } finally {
    wt.cleanup();
  }
}
