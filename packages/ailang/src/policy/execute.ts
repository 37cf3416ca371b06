import { Buffer } from 'node:buffer';
import type { FuncDecl, TypeExpr } from '../lang/ast.js';
import { StandardHost } from '../runtime/host.js';
import { Interpreter } from '../runtime/interpreter.js';
import { Sandbox } from '../runtime/sandbox.js';
import {
  AilRuntimeError,
  ExitRequest,
  NONE,
  UNIT_V,
  listFrom,
  show,
  some,
  type Value,
} from '../runtime/values.js';
import { worktreeReader } from '../toolchain/confine.js';
import { admissionLine, admitProgram, decisionOutput } from './admission.js';
import type { EffectivePolicy } from './policy.js';

/**
 * One policy run from admission to exit code, as the worker thread executes it
 * (ailang.md §1.5). The admission decision is reported first; then the program runs with the
 * policy's caps, budgets and sandbox; runtime failures print `Error: execution failed: …` on
 * stderr and exit 1; `exit(n)` exits n; a non-unit result of the entry is printed with `show`.
 */

/** What a run needs; plain data, so it crosses into a worker thread. */
export interface ExecuteRequest {
  worktree: string;
  /** the entry file as the caller gave it */
  file: string;
  policy: EffectivePolicy;
  stdin: string;
  argv: string[];
  argsJson: string | null;
  /** the minimal environment `std/env` sees */
  env: Record<string, string>;
  /** the recursion ceiling, AILANG_MAX_RECURSION_DEPTH */
  maxRecursionDepth: number;
  /** std/net's per-request bounds (AILANG_NET_REQUEST_TIMEOUT_MS, AILANG_NET_MAX_RESPONSE_BYTES) */
  net: { timeoutMs: number; maxResponseBytes: number };
}

/** Where a run reports. */
export interface ExecuteSink {
  decision(
    d: { admitted: true; line: string } | { admitted: false; stdout: string; exitCode: number },
  ): void;
  stdout(text: string): void;
  stderr(text: string): void;
}

/** How a run ended. */
export type ExecuteResult =
  | { kind: 'exit'; exitCode: number }
  | { kind: 'refused'; exitCode: number }
  | { kind: 'output_limit' };

class OutputLimit extends Error {}

/** Runs one program; never throws for program behaviour (only for bugs of this package). */
export function execute(req: ExecuteRequest, sink: ExecuteSink): ExecuteResult {
  const policy = req.policy;
  const admission = admitProgram(req.file, worktreeReader(req.worktree), policy);
  if (!admission.admitted) {
    const stdout = decisionOutput(
      req.file,
      policy.path,
      admission.module,
      admission.decision,
      admission.sourceTooLarge,
    );
    sink.decision({ admitted: false, stdout, exitCode: admission.exitCode });
    return { kind: 'refused', exitCode: admission.exitCode };
  }
  sink.decision({
    admitted: true,
    line: admissionLine(policy, admission.graph, admission.decision),
  });

  let written = 0;
  const cap = policy.limits.max_output_bytes;
  const emit = (text: string, to: (t: string) => void): void => {
    const bytes = Buffer.byteLength(text, 'utf8');
    if (written + bytes > cap) {
      const room = cap - written;
      written = cap;
      if (room > 0) to(truncateUtf8(text, room));
      throw new OutputLimit();
    }
    written += bytes;
    to(text);
  };
  const sandbox = new Sandbox({
    root: policy.fs_sandbox,
    denyWrite: policy.fs_deny_write,
    transferMax: policy.limits.max_fs_transfer_bytes,
    securityMode: policy.security_mode,
  });
  const host = new StandardHost({
    stdout: (t) => emit(t, (x) => sink.stdout(x)),
    stderr: (t) => emit(t, (x) => sink.stderr(x)),
    stdin: req.stdin,
    caps: new Set(policy.allowed_caps),
    budgets: new Map(Object.entries(policy.budgets)),
    sandbox,
    args: req.argv,
    env: new Map(Object.entries(req.env)),
    timeLimitMs: policy.timeout_ms,
    net: {
      allow: policy.net_allow,
      allowHttp: policy.net_allow_http,
      timeoutMs: req.net.timeoutMs,
      maxResponseBytes: req.net.maxResponseBytes,
    },
  });
  const interp = new Interpreter(host, req.maxRecursionDepth);
  try {
    for (const w of admission.warnings) host.stderr(`${w}\n`);
    interp.load(admission.modules);
    const args = entryArgs(admission.entry, req.argsJson);
    const result = interp.runEntry(admission.module, admission.entry, args);
    if (result !== UNIT_V) host.stdout(`${show(result)}\n`);
    return { kind: 'exit', exitCode: 0 };
  } catch (e) {
    if (e instanceof OutputLimit) return { kind: 'output_limit' };
    if (e instanceof ExitRequest) return { kind: 'exit', exitCode: e.code };
    if (e instanceof AilRuntimeError) {
      try {
        host.stderr(`Error: execution failed: ${e.message}\n`);
      } catch (inner) {
        if (inner instanceof OutputLimit) return { kind: 'output_limit' };
        throw inner;
      }
      return { kind: 'exit', exitCode: 1 };
    }
    throw e;
  }
}

function truncateUtf8(text: string, bytes: number): string {
  const buf = Buffer.from(text, 'utf8').subarray(0, bytes);
  // Drop a partial trailing character rather than emit invalid UTF-8.
  return buf.toString('utf8').replace(/\uFFFD$/, '');
}

/**
 * The entry's arguments from `--args-json` (ailang.md §1.5): none for a zero-parameter entry,
 * the whole JSON value for one parameter, a JSON array for several.
 * @throws AilRuntimeError when the JSON does not fit the parameter types
 */
function entryArgs(entry: FuncDecl, argsJson: string | null): Value[] {
  if (entry.params.length === 0) return [];
  let json: unknown;
  try {
    json = argsJson === null ? null : JSON.parse(argsJson);
  } catch {
    throw new AilRuntimeError('--args-json: the value is not JSON');
  }
  if (entry.params.length === 1)
    return [fromJson(json, entry.params[0]!.type, entry.params[0]!.name)];
  if (!Array.isArray(json) || json.length !== entry.params.length) {
    throw new AilRuntimeError(
      `--args-json: ${entry.name} takes ${entry.params.length} arguments; pass a JSON array of ${entry.params.length} values`,
    );
  }
  return entry.params.map((p, i) => fromJson(json[i], p.type, p.name));
}

function fromJson(json: unknown, te: TypeExpr, param: string): Value {
  const fail = (want: string): never => {
    throw new AilRuntimeError(
      `--args-json: expected ${want} for parameter "${param}", got ${JSON.stringify(json) ?? 'nothing'}`,
    );
  };
  switch (te.k) {
    case 'tunit':
      return json === null ? UNIT_V : fail('null');
    case 'tlist':
      return Array.isArray(json)
        ? listFrom(json.map((x) => fromJson(x, te.elem, param)))
        : fail('an array');
    case 'ttuple':
      return Array.isArray(json) && json.length === te.items.length
        ? { k: 'tuple', items: json.map((x, i) => fromJson(x, te.items[i]!, param)) }
        : fail(`an array of ${te.items.length}`);
    case 'trecord': {
      if (typeof json !== 'object' || json === null || Array.isArray(json))
        return fail('an object');
      const fields = new Map<string, Value>();
      for (const f of te.fields) {
        if (!(f.name in json)) return fail(`an object with field "${f.name}"`);
        fields.set(f.name, fromJson((json as Record<string, unknown>)[f.name], f.type, param));
      }
      return { k: 'record', fields };
    }
    case 'tname':
      switch (te.name) {
        case 'int':
          return typeof json === 'number' && Number.isSafeInteger(json)
            ? BigInt(json)
            : fail('an integer');
        case 'float':
          return typeof json === 'number' ? json : fail('a number');
        case 'string':
          return typeof json === 'string' ? json : fail('a string');
        case 'bool':
          return typeof json === 'boolean' ? json : fail('a boolean');
        case 'Option':
          return json === null ? NONE : some(fromJson(json, te.args[0]!, param));
        default:
          return fail(`a value of a JSON-representable type (not ${te.name})`);
      }
    case 'tfun':
      return fail('a value of a JSON-representable type (not a function)');
  }
}
