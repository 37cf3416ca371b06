import { createHash, randomBytes } from 'node:crypto';
import {
  createReadStream,
  mkdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import {
  ATOMIC_WRITE_SUFFIX_BYTES,
  HANDLER_STREAM_MAX_BYTES,
  deadlineTable,
} from '@world/contracts';
import { CLI_OPS, type CliRequest } from '../cli/ops.js';
import { PolicyMismatchError, ToolProcessError } from '../errors.js';
import { policyDigest } from '../policy/policy.js';
import { classifyRunOutcome } from '../policy/outcome.js';
import { goDuration } from '../policy/supervisor.js';
import {
  assertSandboxIsWorktree,
  cacheDirOf,
  childEnv,
  resolveRunPolicy,
  type PreparedRun,
  type ResolvedRunPolicy,
} from './context.js';
import { runProcess, type ProcessResult } from './process.js';
import { withSlot } from './slots.js';
import { OpToolchain } from './op-toolchain.js';
import { runResult } from './run-result.js';
import type { AilangContext, Toolchain } from './types.js';

/**
 * The adapter for a real `ailang` binary (ailang.md §1.5–§1.6; world-internals §8.2): ops go
 * through `ailang policy-tool --policy P` with one JSON request on stdin, runs through
 * `ailang run --policy P [--args-json J] -- <path> [-- argv…]`; every child runs with cwd = the
 * worktree, the scrubbed environment, its own process group and capped output. Policies are
 * verified with `policy-tool summary` before first use.
 */

/** The summary `policy-tool summary` reports (ailang.md §1.6). */
interface PolicySummary {
  security_mode: string;
  policy_digest: string;
  fs_sandbox: string;
  caps: string[];
  net_allow: string[];
  cli: string[];
}

// Policy files are private to World (world-spec §7.5: mode 0600); the cache directory too.
const POLICY_FILE_MODE = 0o600;
const CACHE_DIR_MODE = 0o700;

const RESPONSE_RESERVED = ['tool', 'policy_digest', 'world'];

class BinaryToolchain extends OpToolchain implements Toolchain {
  readonly kind = 'binary' as const;
  private readonly verified = new Map<string, PolicySummary>();
  private refCache: { key: string; ref: string } | null = null;

  constructor(private readonly bin: string) {
    super();
  }

  private async exec(ctx: AilangContext, args: string[], stdin: string): Promise<ProcessResult> {
    mkdirSync(cacheDirOf(ctx), { recursive: true, mode: CACHE_DIR_MODE });
    const r = await withSlot(() =>
      runProcess(this.bin, args, {
        cwd: ctx.worktree,
        env: childEnv(ctx),
        stdin,
        timeoutMs: ctx.deadlineMs,
        maxBytes: HANDLER_STREAM_MAX_BYTES,
      }),
    );
    if (r.timedOut) {
      throw new ToolProcessError(
        `ailang ${args[0]} exceeded the handler deadline (${goDuration(ctx.deadlineMs)}); process group killed`,
        {
          exitCode: r.exitCode,
          signal: r.signal,
          stdout: r.stdout,
          stderr: r.stderr,
        },
      );
    }
    if (r.overflowed) {
      throw new ToolProcessError(
        `ailang ${args[0]} exceeded the output cap (${HANDLER_STREAM_MAX_BYTES} bytes per stream); process group killed`,
        {
          exitCode: r.exitCode,
          signal: r.signal,
        },
      );
    }
    return r;
  }

  async version(): Promise<string> {
    const r = await runProcess(this.bin, ['version'], {
      cwd: tmpdir(),
      env: { PATH: '/usr/bin:/bin', LANG: 'C', LC_ALL: 'C' },
      stdin: '',
      timeoutMs: VERSION_TIMEOUT_MS,
      maxBytes: HANDLER_STREAM_MAX_BYTES,
    });
    const first = r.stdout.split('\n')[0]!.trim();
    if (r.exitCode !== 0 || !/^AILANG v\S+/.test(first)) {
      throw new ToolProcessError(`${this.bin} version did not print an AILANG version line`, {
        exitCode: r.exitCode,
        stdout: r.stdout,
        stderr: r.stderr,
      });
    }
    return first;
  }

  async toolRef(): Promise<string> {
    const st = statSync(this.bin);
    const key = `${resolve(this.bin)}:${st.size}:${st.mtimeMs}`;
    if (this.refCache?.key === key) return this.refCache.ref;
    const h = createHash('sha256');
    await new Promise<void>((ok, fail) => {
      createReadStream(this.bin)
        .on('data', (c) => h.update(c))
        .on('end', () => ok())
        .on('error', fail);
    });
    const ref = `sha256:${h.digest('hex')}`;
    this.refCache = { key, ref };
    return ref;
  }

  /**
   * One policy-tool request. Refusals come back as `ok:false` with exit 0; any other exit or a
   * malformed response is a handler failure (world-internals §8.2).
   */
  private async policyTool(
    ctx: AilangContext,
    policyPath: string,
    request: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const r = await this.exec(
      ctx,
      ['policy-tool', '--policy', policyPath],
      JSON.stringify(request),
    );
    const detail = { exitCode: r.exitCode, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
    if (r.exitCode !== 0)
      throw new ToolProcessError(
        `ailang policy-tool exited ${r.exitCode ?? `on ${r.signal}`}`,
        detail,
      );
    let response: unknown;
    try {
      response = JSON.parse(r.stdout);
    } catch {
      throw new ToolProcessError('ailang policy-tool answered something that is not JSON', detail);
    }
    if (typeof response !== 'object' || response === null || Array.isArray(response)) {
      throw new ToolProcessError(
        'ailang policy-tool answered something that is not a JSON object',
        detail,
      );
    }
    const obj = response as Record<string, unknown>;
    if (typeof obj.ok !== 'boolean')
      throw new ToolProcessError('ailang policy-tool answered without a boolean "ok"', detail);
    const reserved = RESPONSE_RESERVED.find((k) => k in obj);
    if (reserved !== undefined)
      throw new ToolProcessError(
        `ailang policy-tool answered a reserved key "${reserved}"`,
        detail,
      );
    return obj;
  }

  /** Verifies a policy file once with `policy-tool summary` (world-internals §8.2). */
  private async summary(ctx: AilangContext, resolved: ResolvedRunPolicy): Promise<PolicySummary> {
    const digest = policyDigest(resolved.bytes);
    const key = `${resolved.path}\n${digest}\n${ctx.worktree}`;
    const known = this.verified.get(key);
    if (known) return known;
    const response = await this.policyTool(ctx, resolved.path, { op: 'summary' });
    const s = response.summary as Partial<PolicySummary> | undefined;
    if (response.ok !== true || typeof s !== 'object' || s === null) {
      throw new PolicyMismatchError(
        `policy-tool summary of ${resolved.path} failed: ${String(response.refused ?? 'no summary')}`,
      );
    }
    const want = resolved.effective;
    const sorted = (xs: unknown): string =>
      Array.isArray(xs) ? [...(xs as string[])].sort().join(',') : '';
    const problems: string[] = [];
    if (s.security_mode !== want.security_mode)
      problems.push(`security_mode ${String(s.security_mode)} ≠ ${want.security_mode}`);
    if (s.policy_digest !== digest)
      problems.push(`policy_digest ${String(s.policy_digest)} ≠ ${digest}`);
    if (typeof s.fs_sandbox !== 'string' || resolve(s.fs_sandbox) !== resolve(ctx.worktree))
      problems.push(`fs_sandbox ${String(s.fs_sandbox)} ≠ ${ctx.worktree}`);
    if (sorted(s.caps) !== sorted(want.allowed_caps))
      problems.push(`caps ${sorted(s.caps)} ≠ ${sorted(want.allowed_caps)}`);
    if (sorted(s.net_allow ?? []) !== sorted(want.net_allow))
      problems.push(`net_allow ${sorted(s.net_allow)} ≠ ${sorted(want.net_allow)}`);
    if (!Array.isArray(s.cli)) problems.push('no cli op list');
    if (problems.length > 0)
      throw new PolicyMismatchError(
        `policy ${resolved.path} does not verify: ${problems.join('; ')}`,
      );
    const summary = s as PolicySummary;
    this.verified.set(key, summary);
    return summary;
  }

  private base(ctx: AilangContext): ResolvedRunPolicy {
    assertSandboxIsWorktree(ctx);
    return resolveRunPolicy(ctx, ['FS', 'IO']);
  }

  /** Verifies the base policy (summary); the CLI ops it serves are those its summary lists. */
  protected async ready(ctx: AilangContext): Promise<string[]> {
    const summary = await this.summary(ctx, this.base(ctx));
    return summary.cli.filter((op) => op in CLI_OPS);
  }

  protected async op(ctx: AilangContext, req: CliRequest): Promise<Record<string, unknown>> {
    const request: Record<string, unknown> = { op: req.op };
    for (const f of ['path', 'module', 'query', 'package'] as const)
      if (req[f] !== undefined) request[f] = req[f];
    if (Object.keys(req.flags).length > 0) request.flags = req.flags;
    return this.policyTool(ctx, ctx.policyPath, request);
  }

  protected async runPrepared(
    ctx: AilangContext,
    prepared: PreparedRun,
  ): Promise<Record<string, unknown>> {
    const { run: p, resolved } = prepared;
    if (!resolved.isBase) writePolicyFile(resolved.path, resolved.bytes);
    await this.summary(ctx, resolved);
    const args = ['run', '--policy', resolved.path];
    if (p.argsJson !== null) args.push('--args-json', p.argsJson);
    // The first `--` keeps a hyphen-leading path from being read as a flag, the second keeps
    // argv away from the flag parser (world-internals §8.2).
    args.push('--', p.path);
    if (p.argv.length > 0) args.push('--', ...p.argv);
    const r = await this.exec(ctx, args, p.stdin);
    const outcome = classifyRunOutcome({
      exitCode: r.exitCode ?? SIGNAL_EXIT,
      stdout: r.stdout,
      stderr: r.stderr,
    });
    const policy = resolved.effective;
    return runResult(outcome, policy, ctx.worktree);
  }
}

// A child killed by a signal has no exit code; no documented outcome has this one.
const SIGNAL_EXIT = -1;
// `ailang version` gets the handler cap of a call (10 s of the 20 s deadline table).
const VERSION_TIMEOUT_MS = deadlineTable().handlerMs;

/** Writes a policy variant file (mode 0600) when missing or different, atomically. */
function writePolicyFile(path: string, bytes: string): void {
  try {
    if (readFileSync(path, 'utf8') === bytes) return;
  } catch {
    // absent: write it
  }
  const tmp = `${path}.${randomBytes(ATOMIC_WRITE_SUFFIX_BYTES).toString('hex')}.tmp`;
  writeFileSync(tmp, bytes, { mode: POLICY_FILE_MODE });
  renameSync(tmp, path);
}

/** The adapter for the `ailang` binary at `bin`. */
export function binaryToolchain(bin: string): Toolchain {
  return new BinaryToolchain(bin);
}
