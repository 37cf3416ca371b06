import { checkProgram } from '../lang/program.js';
import { admitProgram, decisionOutput } from '../policy/admission.js';
import type { EffectivePolicy } from '../policy/policy.js';
import { worktreeReader } from '../toolchain/confine.js';
import {
  builtinShowText,
  builtinsJson,
  builtinsText,
  findBuiltin,
  listBuiltins,
} from './builtins-output.js';
import { aiCheckJson, checkHuman, checkJson, type CommandOutput } from './check-output.js';
import { examplesList, examplesSearch, examplesShow, NO_CORPUS_REFUSAL } from './examples.js';
import { ifaceCommand } from './iface.js';
import type { CliRequest } from './ops.js';

/**
 * The embedded toolchain's implementation of the ailang-cli ops it supports (world-spec §3.8).
 * An op or flag it cannot serve is refused by name, never faked.
 */

/** A job for one op: plain data, so it can run in a worker thread. */
export interface OpJob {
  worktree: string;
  policy: EffectivePolicy;
  examplesDir: string | null;
  request: CliRequest;
  version: string;
  /** AILANG_EXAMPLES_MAX_HITS (worker code never loads the contracts package) */
  examplesMaxHits: number;
}

/** An op's result: the command output, or a refusal. */
export type OpResult = { output: CommandOutput } | { refused: string };

/** Why the embedded toolchain cannot serve an op, by op. */
const UNSUPPORTED: Record<string, string> = {
  fmt: 'the TypeScript subset has no formatter',
  test: 'the TypeScript subset does not run inline tests',
  tree: 'the TypeScript subset has no module-tree command',
  docs_search: 'the TypeScript subset ships no documentation index',
  pkg_docs: 'the TypeScript subset ships no package documentation',
  prompt: 'the TypeScript subset ships no teaching prompt',
  agent_prompt: 'the TypeScript subset ships no teaching prompt',
  devtools_prompt: 'the TypeScript subset ships no teaching prompt',
  axioms: 'the TypeScript subset has no contract verifier (no Z3)',
  examples_tags: 'the TypeScript subset does not read corpus tags',
};

/** Flags the embedded toolchain admits per op but cannot honour. */
const UNSUPPORTED_FLAGS: Record<string, string[]> = {
  check: ['strict-syntax'],
  builtins_list: ['by-effect', 'by-module', 'verbose'],
  examples_list: ['status', 'tags'],
};

/** The refusal of an op this toolchain cannot serve (world-spec §3.8 brief: refused by name). */
function unsupportedOp(op: string, why: string): string {
  return `op ${op} is not supported by the embedded AILANG toolchain (${why}; set AILANG_BIN to a real ailang binary for it)`;
}

// Go durations as `--timeout` takes them: 30s, 1m, 500ms, 1h2m3s.
const GO_DURATION = /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/;

/**
 * Runs one validated request.
 */
export function runOp(job: OpJob): OpResult {
  const { request: req, worktree } = job;
  const why = UNSUPPORTED[req.op];
  if (why !== undefined) return { refused: unsupportedOp(req.op, why) };
  for (const flag of UNSUPPORTED_FLAGS[req.op] ?? []) {
    if (flag in req.flags) {
      return {
        refused: `op ${req.op} flag --${flag} is not supported by the embedded AILANG toolchain; set AILANG_BIN to a real ailang binary for it`,
      };
    }
  }
  const reader = worktreeReader(worktree);
  const corpus = (): string | null => job.examplesDir;
  switch (req.op) {
    case 'version':
      return { output: { exitCode: 0, stdout: job.version, stderr: '' } };
    case 'check': {
      const r = checkProgram(req.path!, reader);
      return { output: 'json' in req.flags ? checkJson(r) : checkHuman(r, 'quiet' in req.flags) };
    }
    case 'ai_check': {
      const timeout = req.flags.timeout;
      if (timeout !== undefined && !GO_DURATION.test(timeout)) {
        return {
          output: {
            exitCode: 1,
            stdout: '',
            stderr: `Error: invalid value "${timeout}" for flag -timeout: parse error\n`,
          },
        };
      }
      return { output: aiCheckJson(checkProgram(req.path!, reader)) };
    }
    case 'builtins_list': {
      const items = listBuiltins({ module: req.flags.module, query: req.flags.query });
      return {
        output: {
          exitCode: 0,
          stdout: 'json' in req.flags ? builtinsJson(items) : builtinsText(items),
          stderr: '',
        },
      };
    }
    case 'builtins_show': {
      const found = findBuiltin(req.module!);
      if (found.length === 0) {
        const partial = listBuiltins({ query: req.module! }).map((b) => b.name);
        const hint = partial.length > 0 ? `\nDid you mean: ${partial.slice(0, 5).join(', ')}` : '';
        return {
          output: {
            exitCode: 1,
            stdout: '',
            stderr: `Error: unknown builtin "${req.module}"${hint}\n`,
          },
        };
      }
      return { output: { exitCode: 0, stdout: found.map(builtinShowText).join('\n'), stderr: '' } };
    }
    case 'iface':
      return { output: ifaceCommand(req.module!, 'compact' in req.flags, reader) };
    case 'policy_check': {
      const a = admitProgram(req.path!, reader, job.policy);
      const stdout = decisionOutput(
        req.path!,
        job.policy.path,
        a.module,
        a.decision,
        !a.admitted && a.sourceTooLarge,
      );
      return { output: { exitCode: a.admitted ? 0 : a.exitCode, stdout, stderr: '' } };
    }
    case 'examples_search':
    case 'examples_list':
    case 'examples_show': {
      const dir = corpus();
      if (dir === null) return { refused: NO_CORPUS_REFUSAL };
      if (req.op === 'examples_search')
        return { output: examplesSearch(dir, req.query!, job.examplesMaxHits) };
      if (req.op === 'examples_list') return { output: examplesList(dir) };
      return { output: examplesShow(dir, req.module!) };
    }
    default:
      return { refused: unsupportedOp(req.op, 'unknown to this toolchain') };
  }
}
