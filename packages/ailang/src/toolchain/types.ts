/**
 * The toolchain interface the broker drives (world-spec §3.4–§3.8; world-internals §8.2):
 * one shape for the embedded TypeScript subset and for a real `ailang` binary.
 */

/** The episode policy the broker renders (world-spec §7.6). */
export interface AilangPolicy {
  security_mode: 'restricted' | 'trusted_host';
  allowed_caps: string[];
  fs_sandbox: string;
  timeout_ms: number;
  fs_deny_write: string[];
  entry: string;
  budgets: { FS: number };
  net_allow?: string[];
  /** plain http to the net_allow endpoints (ailang.md §1.5 `net_allow_http`) */
  net_allow_http?: boolean;
}

/** Everything one toolchain operation needs. */
export interface AilangContext {
  /** absolute path; cwd and sandbox of every op */
  worktree: string;
  policy: AilangPolicy;
  /** the rendered TOML file (outside the worktree), for the binary and for `policy_digest` */
  policyPath: string;
  /** the operator's examples corpus, if any */
  examplesDir?: string;
  /** operator-enabled caps beyond IO, FS (world-spec §3.5 operator gates) */
  runAllowCaps: string[];
  /** operator IP:PORT literals for Net */
  netAllow: string[];
  /**
   * plain http to those literals (the operator's `--run-net-allow-http`, world-spec §7.2);
   * absent or false: a Net run reaches them over https only
   */
  netAllowHttp?: boolean;
  /** hard cap for this op, in ms */
  deadlineMs: number;
  /**
   * HOME and AILANG_CACHE_DIR of the binary's child processes (world-spec §7.5: a per-episode
   * cache outside the worktree). Default: `<dirname(policyPath)>/cache/<policy file stem>`.
   */
  cacheDir?: string;
}

/** A toolchain: the embedded subset or a real binary. */
export interface Toolchain {
  readonly kind: 'embedded' | 'binary';
  /** The first line of `ailang version` (`AILANG v0.51.0`, or the embedded subset's own). */
  version(): Promise<string>;
  /**
   * The `tool` ref handler outputs carry (world-spec §3.0): sha256 of the binary's bytes, or
   * of the embedded toolchain's identity (package name and version string).
   */
  toolRef(): Promise<string>;
  /** Ailang.Check op ai_check → {ok:true, argv, exit_code, stdout: <ai-check JSON>, stderr} | {ok:false, refused} */
  aiCheck(ctx: AilangContext, payload: { path: string }): Promise<Record<string, unknown>>;
  /** Ailang.Discover op builtins_list → {ok:true, argv, exit_code, stdout: <text inventory>, stderr} */
  builtinsList(ctx: AilangContext): Promise<Record<string, unknown>>;
  /** Ailang.Discover op examples_search → {ok, argv, exit_code, stdout, stderr} | the no-corpus refusal of §3.7 */
  examplesSearch(ctx: AilangContext, payload: { query: string }): Promise<Record<string, unknown>>;
  /**
   * Ailang.CLI: one of the §3.8 ops → {ok, argv, exit_code, stdout, stderr}; flag refusals
   * exactly as §3.8; an op this toolchain cannot serve is refused by name.
   */
  cli(ctx: AilangContext, payload: Record<string, unknown>): Promise<Record<string, unknown>>;
  /**
   * Ailang.Run → {admitted, exit_code, decision, limit, stdout, stderr, policy:{digest,
   * security_mode, caps, net_allow}}; payload {path, args_json?, stdin?, argv?, caps?}.
   * @throws RunEnvelopeError for an unrecognised outcome, OperatorGateError when a cap beyond
   *   IO/FS is not enabled by the operator (both recorded by the broker as failed effects)
   */
  run(ctx: AilangContext, payload: Record<string, unknown>): Promise<Record<string, unknown>>;
}
