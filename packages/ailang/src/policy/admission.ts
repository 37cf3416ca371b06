import { Buffer } from 'node:buffer';
import type { FuncDecl } from '../lang/ast.js';
import {
  checkProgram,
  funcDecls,
  moduleGraph,
  ReadFailure,
  type LoadedModule,
  type SourceReader,
} from '../lang/program.js';
import type { EffectivePolicy } from './policy.js';

/**
 * Admission of `ailang run --policy` (ailang.md §1.5 `admitProgram`, shared with
 * `policy-check`), in order: read the entry, source size cap, type and effect check, the entry
 * exists and is exported, and the entry's declared effect row lies within `allowed_caps`.
 */

/** The `decision` object (ailang.md §1.5 policyCheckOutput), keys in the real order. */
export interface Decision {
  ok: boolean;
  error_kind?: string;
  message?: string;
  function?: string;
  declared_effects?: string[];
  allowed_caps?: string[];
  missing_from_policy?: string[];
}

/** Admission outcome. */
export type Admission =
  | {
      admitted: true;
      decision: Decision;
      module: string;
      modules: LoadedModule[];
      entry: FuncDecl;
      graph: { digest: string; files: number; bytes: number };
      /** the loader's warnings (stderr before the program's output) */
      warnings: string[];
    }
  | {
      admitted: false;
      decision: Decision;
      module: string | null;
      /** 1 for read_failed, 2 for every other refusal */
      exitCode: 1 | 2;
      sourceTooLarge: boolean;
    };

/**
 * Decides whether a program may run under a policy.
 * @param file the entry path as the caller gave it (relative to the worktree)
 */
export function admitProgram(
  file: string,
  reader: SourceReader,
  policy: EffectivePolicy,
): Admission {
  const refuse = (
    decision: Omit<Decision, 'ok'>,
    module: string | null,
    exitCode: 1 | 2 = 2,
    sourceTooLarge = false,
  ): Admission => ({
    admitted: false,
    decision: { ok: false, ...decision },
    module,
    exitCode,
    sourceTooLarge,
  });
  let source: string;
  try {
    source = reader.read(file);
  } catch (e) {
    if (!(e instanceof ReadFailure)) throw e;
    return refuse({ error_kind: 'read_failed', message: e.message }, null, 1);
  }
  const size = Buffer.byteLength(source, 'utf8');
  if (size > policy.limits.max_source_bytes) {
    return refuse(
      {
        error_kind: 'source_too_large',
        message: `source is ${size} bytes; max_source_bytes is ${policy.limits.max_source_bytes}`,
      },
      null,
      2,
      true,
    );
  }
  const cached: SourceReader = { read: (rel) => (rel === file ? source : reader.read(rel)) };
  const result = checkProgram(file, cached);
  const graph = moduleGraph(result.modules);
  if (graph.bytes > policy.limits.max_module_graph_bytes) {
    return refuse(
      {
        error_kind: 'source_too_large',
        message: `module graph is ${graph.bytes} bytes; max_module_graph_bytes is ${policy.limits.max_module_graph_bytes}`,
      },
      result.module,
      2,
      true,
    );
  }
  if (result.phase !== 'ok') {
    return refuse(
      {
        error_kind: 'typecheck_failed',
        message: result.diagnostics.map((d) => d.message).join('\n'),
      },
      result.module,
    );
  }
  const entryModule = result.modules[result.modules.length - 1]!;
  const entry = funcDecls(entryModule.ast).find((d) => d.name === policy.entry);
  if (entry === undefined) {
    return refuse(
      {
        error_kind: 'missing_entry',
        message: `entry function "${policy.entry}" not found in module ${entryModule.path}`,
        function: policy.entry,
      },
      entryModule.path,
    );
  }
  if (!entry.exported) {
    return refuse(
      {
        error_kind: 'missing_entry',
        message: `entry function "${policy.entry}" is not exported (declare it "export func ${policy.entry}")`,
        function: policy.entry,
      },
      entryModule.path,
    );
  }
  const declared = [...new Set((entry.effects?.labels ?? []).map((l) => l.name))].sort();
  const allowed = [...policy.allowed_caps].sort();
  if (entry.effects !== null && entry.effects.vars.length > 0) {
    return refuse(
      {
        error_kind: 'parametric_entry_unsupported',
        message: `entry function "${entry.name}" has an open effect row {${entry.effects.vars.join(', ')}}; declare concrete effects`,
        function: entry.name,
        declared_effects: declared,
        allowed_caps: allowed,
      },
      entryModule.path,
    );
  }
  const missing = declared.filter((e) => !allowed.includes(e));
  if (missing.length > 0) {
    return refuse(
      {
        error_kind: 'policy_violation',
        message: 'declared effects exceed policy',
        function: entry.name,
        declared_effects: declared,
        allowed_caps: allowed,
        missing_from_policy: missing,
      },
      entryModule.path,
    );
  }
  return {
    admitted: true,
    decision: { ok: true, function: entry.name, declared_effects: declared, allowed_caps: allowed },
    module: entryModule.path,
    modules: result.modules,
    entry,
    graph,
    warnings: result.warnings,
  };
}

/**
 * The decision JSON a refused run prints on stdout (ailang.md §1.5), indented like Go's
 * MarshalIndent, with a trailing newline.
 */
export function decisionOutput(
  file: string,
  policyPath: string,
  module: string | null,
  decision: Decision,
  sourceTooLarge: boolean,
): string {
  const out: Record<string, unknown> = { file, policy: policyPath };
  if (module) out.module = module;
  out.decision = decision;
  if (sourceTooLarge) out.source_too_large = true;
  return `${JSON.stringify(out, null, JSON_INDENT)}\n`;
}

// Go's json.MarshalIndent(v, "", "  ").
const JSON_INDENT = 2;

/**
 * The `policy:` admission line's JSON (ailang.md §1.5 admissionLine), keys in the real order.
 */
export function admissionLine(
  policy: EffectivePolicy,
  graph: { digest: string; files: number; bytes: number },
  decision: Decision,
): string {
  const line: Record<string, unknown> = {
    ok: true,
    policy: policy.path,
    policy_digest: policy.digest,
    security_mode: policy.security_mode,
    caps: [...policy.allowed_caps].sort(),
    fs_sandbox: policy.fs_sandbox,
    net_allow: policy.net_allow,
    process_allow: [],
    ai_provider: '',
    entry: policy.entry,
    timeout_ms: policy.timeout_ms,
  };
  if (Object.keys(policy.budgets).length > 0) line.budgets = policy.budgets;
  line.limits = policy.limits;
  line.module_graph = graph;
  line.decision = decision;
  return JSON.stringify(line);
}
