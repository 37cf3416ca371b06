/**
 * Every number World enforces, named once (CONVENTIONS.md "Limits and deadlines").
 * Sources: world-spec §10 and world-internals §9 unless stated.
 */

/**
 * Bytes in one mebibyte.
 * @internal exported for limits.spec.ts and the suites that size payloads (gateway a2a/rest/mcp int-specs, cli e2e) */
export const MiB = 1024 * 1024;

/** Body of POST /a2a: 1 MiB (world-spec §6.5). */
export const A2A_BODY_MAX_BYTES = 1 * MiB;
/** Body of POST /mcp: 4 MiB (world-spec §6.2). */
export const MCP_BODY_MAX_BYTES = 4 * MiB;
/** Canonical invocation input and output: 1 MiB each (world-internals §9). */
export const INVOCATION_INPUT_MAX_BYTES = 1 * MiB;
export const INVOCATION_OUTPUT_MAX_BYTES = 1 * MiB;
/** A plan effect's payload: 1 MiB (plan law L4). */
export const PLAN_PAYLOAD_MAX_BYTES = 1 * MiB;
/** NATS max_payload World's deployments configure (DESIGN.md §1); every message fits under it. */
export const NATS_MAX_PAYLOAD_BYTES = 8 * MiB;

/**
 * Characters of the standard padded base64 of `bytes` bytes: 4 per 3 bytes, rounded up
 * (RFC 4648 §4). Object payloads travel so on the bus (world-spec §2.13 wire form).
 * @throws RangeError when bytes is not a non-negative integer
 * @internal exported for limits.spec.ts, packages/runtime/src/nats-client.spec.ts
 */
export function base64Length(bytes: number): number {
  if (!Number.isInteger(bytes) || bytes < 0)
    throw new RangeError(`byte count must be a non-negative integer, got ${bytes}`);
  return 4 * Math.ceil(bytes / 3);
}

/** Log and lookup pages: default 100 when absent or < 1, at most 500 (world-spec §5.1). */
export const PAGE_DEFAULT = 100;
export const PAGE_MAX = 500;
/** `world log tail` prints the last 20 entries by default (world-spec §7.3). */
export const LOG_TAIL_DEFAULT = 20;

/** Session credential: 32 random bytes, 64 hex characters (world-spec §2.2). */
export const SESSION_TOKEN_BYTES = 32;
/** Default session lifetime: 3600 s (world-spec §10). */
export const SESSION_TTL_DEFAULT_SECONDS = 3600;
/** A session file holds at most 256 bytes (world-spec §7.3). */
export const SESSION_FILE_MAX_BYTES = 256;
/** The gateway may cache a session resolution for at most 1 s (DESIGN.md §2). */
export const SESSION_CACHE_MAX_MS = 1000;

/** A2A task ids: 1-128 of [A-Za-z0-9._-] (world-spec §6.5; the grammar in ids.ts). */
export const TASK_ID_MAX_CHARS = 128;
/** MCP invocations without a caller key get 32 random bytes as task id (world-spec §4.6). */
export const MCP_TASK_ID_BYTES = 32;

/** Plans carry at most one effect in v1 (plan law L1). */
export const PLAN_MAX_EFFECTS = 1;
/** A plan effect id is 1-16 of [a-z0-9] (plan law L2, world-spec §2.5). */
export const PLAN_EFFECT_ID_MAX_CHARS = 16;

/**
 * Everything in one `ledger.commit` message besides the five large payloads counted in
 * COMMIT_MESSAGE_MAX_BYTES: the packet's own fields (pattern, id, trace context), the commit's
 * header fields, the seven wire objects' envelopes (hash, interface hash, semantic id,
 * provenance: each at most 256 characters), the invocation record, the effect record, and the
 * plan's and effect request's fields around their one payload. Measured on the real encoders
 * with every envelope string and id at its longest: 8 870 bytes of a 6 999 390-byte message
 * (packages/runtime/src/nats-client.spec.ts); 64 KiB leaves room for longer descriptor names.
 * @internal exported for limits.spec.ts, packages/runtime/src/nats-client.spec.ts
 */
export const COMMIT_MESSAGE_OVERHEAD_MAX_BYTES = 64 * 1024;

/**
 * The largest `ledger.commit` message a tool call can send, in bytes on the wire (DESIGN.md §1):
 * the input (INVOCATION_INPUT_MAX_BYTES), per planned effect its payload twice (in the plan and
 * in the effect request, PLAN_PAYLOAD_MAX_BYTES each) and the handler's result
 * (INVOCATION_OUTPUT_MAX_BYTES), the output (INVOCATION_OUTPUT_MAX_BYTES), every payload base64
 * in its wire object, plus the overhead allowance. It is the largest message World sends for a tool call (an invocation request is
 * bounded by the MCP body, 4 MiB), so a NATS server whose max_payload is below it could refuse a
 * commit after its effect ran: every service refuses to start on such a server (exit 2).
 */
export const COMMIT_MESSAGE_MAX_BYTES =
  base64Length(INVOCATION_INPUT_MAX_BYTES) +
  PLAN_MAX_EFFECTS *
    (2 * base64Length(PLAN_PAYLOAD_MAX_BYTES) + base64Length(INVOCATION_OUTPUT_MAX_BYTES)) +
  base64Length(INVOCATION_OUTPUT_MAX_BYTES) +
  COMMIT_MESSAGE_OVERHEAD_MAX_BYTES;

/**
 * What a handler's output may be (canonical JSON bytes, the `tool` and `policy_digest` stamps
 * included): the invocation output cap less room for the world block the planner adds to it
 * (world-spec §4.2: `plan` and one effect's id, status and record ref, a few hundred bytes). An
 * output over it is refused as a failed effect by the broker (committed with its reason), so the
 * output the planner composes always fits INVOCATION_OUTPUT_MAX_BYTES and so the commit
 * (COMMIT_MESSAGE_MAX_BYTES): an effect never runs and then fails to commit for its size.
 * @internal exported for limits.spec.ts
 */
export const WORLD_BLOCK_MAX_BYTES = 16 * 1024;
export const HANDLER_OUTPUT_MAX_BYTES = INVOCATION_OUTPUT_MAX_BYTES - WORLD_BLOCK_MAX_BYTES;
/**
 * The largest file ailang-read returns (bytes on disk): its content travels as one JSON string
 * of the handler output, so the output's other fields (`ok`, `tool`, `policy_digest`: under
 * 1 KiB) are held back. A larger file is refused up front (`file is N bytes; at most M can be
 * read`); a file under it whose JSON escapes (control characters, 6 bytes each) still overflow
 * HANDLER_OUTPUT_MAX_BYTES is a failed effect, committed with its reason.
 */
export const READ_CONTENT_MAX_BYTES = HANDLER_OUTPUT_MAX_BYTES - 1024;
/**
 * Body of POST /v1/commit, answered 413 above it: whatever a REST commit carries travels in one
 * `ledger.commit` message, so the body may take the whole commit bound less the packet's own
 * overhead (6 990 520 bytes). The reference daemon, which has no bus, allows 8 MiB (world-spec
 * §5.10, §10); a body between the two would pass the gateway and then fail on NATS.
 */
export const COMMIT_BODY_MAX_BYTES = COMMIT_MESSAGE_MAX_BYTES - COMMIT_MESSAGE_OVERHEAD_MAX_BYTES;

/**
 * Tool costs (world-spec §3.0): a descriptor's `access` triple costs 0 (it only admits), its one
 * declared effect costs 1 call of budget.
 */
export const TOOL_ACCESS_COST = 0;
export const TOOL_EFFECT_COST = 1;

/** ailang-run inputs (world-spec §3.5). */
export const RUN_STDIN_MAX_BYTES = 65536;
export const RUN_ARGV_MAX_ITEMS = 32;
export const RUN_ARGV_ITEM_MAX_BYTES = 1024;
/** AILANG policy: inner file-operation budget (world-spec §3.5). */
export const AILANG_FS_BUDGET = 1000;
/** builtins-search returns at most 10 matches for a query (world-spec §3.6). */
export const BUILTINS_SEARCH_MAX_MATCHES = 10;
/** policy-tool stdout cap: 64 KiB (world-spec §10). */
export const POLICY_TOOL_STDOUT_MAX_BYTES = 64 * 1024;
/** Output cap per stream of a handler subprocess or worker: 8 MiB (world-internals §9). */
export const HANDLER_STREAM_MAX_BYTES = 8 * MiB;

/** The invocation deadline that every phase's share is derived from: 20 s (world-spec §10). */
export const CALL_DEADLINE_MS = 20_000;
/** Graceful shutdown drains in-flight calls for at most 10 s (world-spec §10). */
export const SHUTDOWN_DRAIN_MS = 10_000;
/** Client verbs give up after 30 s (world-spec §7.3). */
export const CLIENT_TIMEOUT_MS = 30_000;
/** A store read per GET ends after 10 s (world-spec §10). */
export const READ_DEADLINE_MS = 10_000;
/** Credential lookup: 3 s (world-spec §10). */
export const CREDENTIAL_LOOKUP_MS = 3_000;
/** REST commit store work: 3 s (world-spec §10). */
export const REST_COMMIT_MS = 3_000;

/** The per-phase budgets of one invocation, all derived from its total deadline. */
export interface DeadlineTable {
  /** whole invocation, from admission to the committed answer */
  totalMs: number;
  /** the effect handler's hard cap */
  handlerMs: number;
  /** the pure finish phase */
  finishMs: number;
  /** every write after the handler ran (record, finish, compose, commit), detached */
  postEffectMs: number;
  /** the pure plan phase: what remains, total − handler − (finish + post-effect) */
  planMs: number;
  /** the AILANG supervisor's timeout: 2 s under the handler cap so it reports first */
  policyTimeoutMs: number;
  /**
   * how long a keyed invocation's claim outlives its holder before a resend may take it over (the
   * episode lease is shorter and renewed: EPISODE_LEASE_TTL_MS)
   */
  leaseTtlMs: number;
}

/**
 * Derives every phase budget from one total (world-internals §13: 20 s invoke = 4 s plan +
 * 10 s handler + 2 s finish + 4 s post; policy 8 s = handler − 2 s). Shares scale with the
 * total so tests may run with a shorter one.
 * @param totalMs the invocation deadline in milliseconds (default 20 000)
 * @throws RangeError when totalMs is not a positive integer
 */
export function deadlineTable(totalMs: number = CALL_DEADLINE_MS): DeadlineTable {
  if (!Number.isInteger(totalMs) || totalMs <= 0) {
    throw new RangeError(`deadline total must be a positive integer, got ${totalMs}`);
  }
  const handlerMs = totalMs / 2;
  const finishMs = totalMs / 10;
  const postEffectMs = totalMs / 5;
  const planMs = totalMs - handlerMs - (finishMs + postEffectMs);
  return {
    totalMs,
    handlerMs,
    finishMs,
    postEffectMs,
    planMs,
    policyTimeoutMs: handlerMs - finishMs,
    leaseTtlMs: totalMs + finishMs,
  };
}

// ---------------------------------------------------------------- broker
/**
 * An episode lease (DESIGN.md §2 "Per-episode serialization") lasts 3 s past its last renewal, so
 * a holder that is SIGKILLed stalls its episode for at most 3 s; while its call runs the holder
 * renews it every EPISODE_LEASE_RENEW_MS (the broker while the handler and its records run, the
 * planner from the execute reply to the release), so a live call keeps it for its whole deadline.
 */
export const EPISODE_LEASE_TTL_MS = 3_000;
/** A third of the lease: two renewals in a row may be late or lost before the lease lapses. */
export const EPISODE_LEASE_RENEW_MS = EPISODE_LEASE_TTL_MS / 3;
/** A lease waiter re-reads the episode row at least this often when no release wakes it (DESIGN.md §2). */
export const LEASE_POLL_MS = 1_000;
/**
 * A call that had to wait for its episode's lease is granted it only once its planner instance
 * answers `planner.alive.<caller>` within 2 s (DESIGN.md §2 "Per-episode serialization"): a
 * SIGKILLed planner has no subscriber (NATS answers "no responders" at once) and a hung one does
 * not answer in time, so the call is dropped before anything is written instead of running for
 * a caller that is gone and holding the episode one more lease. A dead planner then stalls its
 * episode one lease (EPISODE_LEASE_TTL_MS), a hung one at most one lease and this wait.
 */
export const PLANNER_LIVENESS_MS = 2_000;
/** Random bytes of a planner instance's caller id, the name of its liveness subject (hex). */
export const PLANNER_CALLER_BYTES = 8;
/**
 * A keyed `planner.invoke`'s receipt bound, both ways (invoke-planner.ts; world-internals §5.5)
 * @alias of PLANNER_LIVENESS_MS, named for its own use (knip: not a duplicate export) */
export const INVOKE_RECEIPT_MS = PLANNER_LIVENESS_MS;
/** `git worktree add` / copying a source tree for a new episode ends after 60 s. */
export const EPISODE_SOURCE_MS = 60_000;
/** Random bytes in the name of an atomic write's temporary file (hex-encoded). */
export const ATOMIC_WRITE_SUFFIX_BYTES = 8;
/**
 * Symlinks followed while resolving one path inside a worktree before it is refused as a loop:
 * Linux's MAXSYMLINKS, so the confinement walk gives up where the kernel would (ELOOP).
 */
export const CONFINE_SYMLINK_HOPS_MAX = 40;

// ---------------------------------------------------------------- gateway
/** The gateway's default port: it binds 127.0.0.1:7644 unless told otherwise (world-spec §10). */
export const DEFAULT_HTTP_PORT = 7644;
/** The largest TCP port number (RFC 793: a 16-bit field). */
export const MAX_TCP_PORT = 65_535;
/**
 * A caller waits this much longer than the callee's own deadline, so the callee's typed answer
 * (Timeout, CommitUncertain…) arrives before the caller's transport gives up.
 */
export const REPLY_GRACE_MS = 1_000;
/** Bodies of the operator routes (episode create, session mint, …): 64 KiB. */
export const OPERATOR_BODY_MAX_BYTES = 64 * 1024;
/**
 * The operator credential: 32 random bytes, 64 hex, like a session credential (world-spec §2.2).
 * @alias of SESSION_TOKEN_BYTES, named for its own use (knip: not a duplicate export)
 */
export const OPERATOR_TOKEN_BYTES = SESSION_TOKEN_BYTES;
/** The gateway reads a request's headers within 5 s and its whole request within 30 s (world-internals §9). */
export const HTTP_READ_HEADER_TIMEOUT_MS = 5_000;
export const HTTP_READ_TIMEOUT_MS = 30_000;
/**
 * A gateway connection that sends nothing for 5 s is closed: a new one before its first request,
 * a kept-alive one between requests (the read-header bound, so an idle socket costs no more than
 * a slow header; Node's own keep-alive default is the same 5 s, above undici's 4 s client idle).
 */
export const HTTP_IDLE_TIMEOUT_MS = 5_000;
/**
 * At most 256 connections per gateway process at once; the server closes one beyond it at accept
 * (counted in `world_http_connections_closed_total{reason="refused"}`). MCP and A2A clients keep
 * a few connections each, so this is many agents per replica, and far under the descriptor limit.
 */
export const HTTP_MAX_CONNECTIONS = 256;

// ---------------------------------------------------------------- ailang (packages/ailang)
/** AILANG's default call-depth ceiling (`--max-recursion-depth`, ailang.md §1.5). */
export const AILANG_MAX_RECURSION_DEPTH = 10_000;
/** Restricted-mode byte limits of an AILANG policy (ailang.md §1.5 policy TOML). */
export const AILANG_MAX_SOURCE_BYTES = 1 * MiB;
export const AILANG_MAX_MODULE_GRAPH_BYTES = 16 * MiB;
export const AILANG_MAX_OUTPUT_BYTES = 8 * MiB;
export const AILANG_MAX_FS_TRANSFER_BYTES = 8 * MiB;
/** One std/net request of an embedded run: its whole exchange must end within this (ms). */
export const AILANG_NET_REQUEST_TIMEOUT_MS = 10_000;
/** The largest response body a std/net request of an embedded run reads (ailang.md §2.3: 5 MB). */
export const AILANG_NET_MAX_RESPONSE_BYTES = 5 * MiB;
/**
 * The embedded runner's worker thread: V8 old-generation heap and thread stack. The stack is
 * sized so AILANG_MAX_RECURSION_DEPTH nested calls fit before the JS engine's own limit.
 */
export const AILANG_WORKER_HEAP_MB = 256;
export const AILANG_WORKER_STACK_MB = 64;
/**
 * How long before the handler deadline the embedded supervisor stops a run's worker itself, so
 * its `policy-result:` report (a timeout limit, exit 3) reaches the broker before the broker's
 * own handler cap turns the effect into a failure. Without it both fired at the same instant and
 * a loaded machine let the cap win (the ailang-leaks e2e and ailang-tools "(d) supervisor limit"
 * saw `failed` effects when worker start-up delayed the admission past the policy timeout).
 */
export const AILANG_SUPERVISOR_REPORT_MS = 500;
/** After a handler subprocess exits or is killed, its pipes get 1 s to close (world-internals §9). */
export const HANDLER_PIPE_GRACE_MS = 1_000;
/** At most 8 AILANG subprocesses or workers run at once per process (world-spec §10, world-internals §9). */
export const HANDLER_MAX_CONCURRENT = 8;
/** examples-search lists at most 20 hits of the embedded toolchain's corpus search. */
export const AILANG_EXAMPLES_MAX_HITS = 20;

// ---------------------------------------------------------------- live log tail and the `world` client verbs
/**
 * The gateway writes a whole response within 30 s (world-spec §10 "HTTP read / write timeouts").
 * @internal exported for apps/gateway/src/provenance/log-stream.spec.ts */
export const HTTP_WRITE_TIMEOUT_MS = 30_000;
/**
 * What a live-tail run keeps free under the write timeout after its last read (world-internals §7.4).
 * @internal exported for apps/gateway/src/provenance/log-stream.spec.ts, apps/cli/test/e2e/cli.e2e-spec.ts */
export const LOG_STREAM_MARGIN_MS = 2_000;
/**
 * One `GET /v1/log/stream` run lasts at most 18 s = write timeout − read deadline − margin
 * (world-internals §7.4); the client reconnects from its last index.
 */
export const LOG_STREAM_RUN_MS = HTTP_WRITE_TIMEOUT_MS - READ_DEADLINE_MS - LOG_STREAM_MARGIN_MS;
/** A live tail re-reads the log this often without an event: `ledger.committed` is at most once. */
export const LOG_STREAM_RESYNC_MS = 1_000;
/** `world log tail --follow` reconnects after a failure with a backoff doubling from 250 ms to 5 s (world-spec §7.3). */
export const LOG_TAIL_BACKOFF_MIN_MS = 250;
export const LOG_TAIL_BACKOFF_MAX_MS = 5_000;
/**
 * `world why --scan N` (world-spec §7.3, §10): default 500, at most 5000. Still validated so
 * scripts passing it keep working; targets are found by the ledger's indexes, so it bounds nothing.
 */
export const WHY_SCAN_DEFAULT = 500;
export const WHY_SCAN_MAX = 5_000;
/** Client output: a value longer than this many characters is elided with its byte count (world-spec §7.3). */
export const CLI_PREVIEW_CHARS = 120;
/** Client output: refs are shortened to this many hex digits (`sha256:08ab69ae…`, world-spec §7.3). */
export const CLI_SHORT_REF_HEX = 8;

// ---------------------------------------------------------------- operations (health, metrics, shutdown)
/**
 * One readiness check (a PostgreSQL `SELECT 1` or a NATS round trip) that has not answered
 * within 2 s counts as failed: a probe must answer well inside an orchestrator's usual
 * 5 s probe timeout, and a healthy round trip takes about a millisecond (ecosystem §5.3).
 */
export const READINESS_CHECK_MS = 2_000;
/**
 * Bucket bounds (seconds) of World's latency histograms (`world_phase_seconds`,
 * `world_lease_wait_seconds`): 1 ms, where a NATS hop or a commit sits (ecosystem §5.3), up to
 * the whole invocation deadline.
 */
export const LATENCY_BUCKETS_SECONDS: readonly number[] = [
  0.001,
  0.0025,
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
  CALL_DEADLINE_MS / 1000,
];

/**
 * The start-up integrity scan of each service that owns hashed data (world-spec §2.18: "scans
 * persisted log and world rows within 20,000 rows and 2 s"; world-internals §6: 64 rows a page).
 * It checks the newest rows first and stops at whichever budget ends first, reporting where it
 * stopped.
 */
export const INTEGRITY_SCAN_BUDGET_MS = 2_000;
export const INTEGRITY_SCAN_MAX_ROWS = 20_000;
export const INTEGRITY_SCAN_PAGE_ROWS = 64;
/**
 * Payloads an integrity scan reads at once: objects are up to 1 MiB each (world-internals §9), so
 * a page of them stays within 16 MiB of memory.
 */
export const INTEGRITY_SCAN_OBJECT_PAGE = 16;
/** Problems an integrity report lists (and logs one line each); the rest are counted. */
export const INTEGRITY_REPORT_MAX_PROBLEMS = 20;

// ---------------------------------------------------------------- world up (apps/cli/src/system/up.ts)
/** `world up` waits this long for every process to log "ready" before it stops them all. */
export const UP_READY_TIMEOUT_MS = 60_000;
/**
 * A SIGTERM'd process gets its own drain (SHUTDOWN_DRAIN_MS, world-spec §10) plus this margin to
 * close its connections before `world up` sends SIGKILL.
 */
export const UP_STOP_MARGIN_MS = 2_000;
/** `--replicas` accepts 1-99 processes per service. */
export const UP_MAX_REPLICAS = 99;
/**
 * `world up` restarts a replica that exits on its own after a back-off doubling from 500 ms to
 * 30 s with each restart in a row (systemd's and Erlang supervisors' practice: a crash loop
 * neither spins nor gives up); a replica that stays ready for 60 s starts again from 500 ms.
 */
export const UP_RESTART_BACKOFF_MIN_MS = 500;
export const UP_RESTART_BACKOFF_MAX_MS = 30_000;
export const UP_RESTART_STABLE_MS = 60_000;

// ---------------------------------------------------------------- transparency log (packages/tlog)
/**
 * A signed note with more signatures than this is refused unread: C2SP signed-note asks verifiers
 * to cap the count and to accept at least 16; 100 is golang.org/x/mod/sumdb/note's cap, room for
 * the log's key plus many witness cosignatures.
 */
export const NOTE_MAX_SIGNATURES = 100;
