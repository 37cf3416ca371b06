import { tempWorktree, testPolicy } from '../../test/helpers/programs.js';
import { worktreeReader } from '../toolchain/confine.js';
import { admissionLine, admitProgram, decisionOutput } from './admission.js';

const files: Record<string, string> = {
  'ok.ail': 'module ok\nimport std/io (println)\nexport func main() -> () ! {IO} = println("x")\n',
  'net.ail': 'module net\nexport func main() -> () ! {IO, Net} = ()\n',
  'poly.ail': 'module poly\nexport func main() -> () ! {e} = ()\n',
  'noentry.ail': 'module noentry\nexport func start() -> () = ()\n',
  'private.ail': 'module private\nfunc main() -> () = ()\n',
  'bad.ail': 'module bad\nexport func main() -> int = "x"\n',
  'big.ail': `module big\n-- ${'x'.repeat(200)}\nexport func main() -> () = ()\n`,
};

describe('admitProgram (ailang.md §1.5 admission, in order)', () => {
  const wt = tempWorktree(files);
  afterAll(() => wt.cleanup());

  it.each([
    [
      'an admitted program',
      'ok.ail',
      {
        admitted: true,
        decision: {
          ok: true,
          function: 'main',
          declared_effects: ['IO'],
          allowed_caps: ['FS', 'IO'],
        },
      },
    ],
    [
      'declared effects beyond allowed_caps (policy_violation)',
      'net.ail',
      {
        admitted: false,
        exitCode: 2,
        decision: {
          ok: false,
          error_kind: 'policy_violation',
          message: 'declared effects exceed policy',
          function: 'main',
          declared_effects: ['IO', 'Net'],
          allowed_caps: ['FS', 'IO'],
          missing_from_policy: ['Net'],
        },
      },
    ],
    [
      'an open effect row (parametric_entry_unsupported)',
      'poly.ail',
      {
        admitted: false,
        exitCode: 2,
        decision: {
          ok: false,
          error_kind: 'parametric_entry_unsupported',
          message: 'entry function "main" has an open effect row {e}; declare concrete effects',
          function: 'main',
          declared_effects: [],
          allowed_caps: ['FS', 'IO'],
        },
      },
    ],
    [
      'no entry function (missing_entry)',
      'noentry.ail',
      {
        admitted: false,
        exitCode: 2,
        decision: {
          ok: false,
          error_kind: 'missing_entry',
          message: 'entry function "main" not found in module noentry',
          function: 'main',
        },
      },
    ],
    [
      'an entry that is not exported',
      'private.ail',
      {
        admitted: false,
        exitCode: 2,
        decision: {
          ok: false,
          error_kind: 'missing_entry',
          message: 'entry function "main" is not exported (declare it "export func main")',
          function: 'main',
        },
      },
    ],
    [
      'a type error (typecheck_failed, the compiler error as message)',
      'bad.ail',
      {
        admitted: false,
        exitCode: 2,
        decision: {
          ok: false,
          error_kind: 'typecheck_failed',
          message:
            'type error in bad (decl 0): at bad.ail:2:29: type mismatch in the function body: expected int, got string',
        },
      },
    ],
    [
      'an unreadable entry (read_failed, exit 1)',
      'nope.ail',
      {
        admitted: false,
        exitCode: 1,
        decision: {
          ok: false,
          error_kind: 'read_failed',
          message: 'open nope.ail: no such file or directory',
        },
      },
    ],
  ])('%s', (_name, file, expected) => {
    const a = admitProgram(file, worktreeReader(wt.dir), testPolicy(wt.dir));
    const got = a.admitted
      ? { admitted: true, decision: a.decision }
      : { admitted: false, exitCode: a.exitCode, decision: a.decision };
    expect(got).toEqual(expected);
  });

  it('refuses a source over max_source_bytes (source_too_large)', () => {
    const policy = testPolicy(wt.dir, {
      limits: {
        max_source_bytes: 100,
        max_module_graph_bytes: 1000,
        max_output_bytes: 10,
        max_fs_transfer_bytes: 10,
      },
    });
    const a = admitProgram('big.ail', worktreeReader(wt.dir), policy);
    expect(a).toEqual({
      admitted: false,
      exitCode: 2,
      module: null,
      sourceTooLarge: true,
      decision: {
        ok: false,
        error_kind: 'source_too_large',
        message: 'source is 245 bytes; max_source_bytes is 100',
      },
    });
  });

  it('prints the refused decision as indented JSON with the file, policy and module', () => {
    expect(
      decisionOutput(
        'net.ail',
        'p.toml',
        'net',
        { ok: false, error_kind: 'policy_violation' },
        false,
      ),
    ).toBe(
      '{\n  "file": "net.ail",\n  "policy": "p.toml",\n  "module": "net",\n  "decision": {\n    "ok": false,\n    "error_kind": "policy_violation"\n  }\n}\n',
    );
  });

  it('writes the policy: admission line with every field in the real order (ailang.md §1.5 admissionLine)', () => {
    const policy = testPolicy('/ws/ep1');
    const line = JSON.parse(
      admissionLine(policy, { digest: 'd', files: 1, bytes: 10 }, { ok: true, function: 'main' }),
    ) as Record<string, unknown>;
    expect(Object.keys(line)).toEqual([
      'ok',
      'policy',
      'policy_digest',
      'security_mode',
      'caps',
      'fs_sandbox',
      'net_allow',
      'process_allow',
      'ai_provider',
      'entry',
      'timeout_ms',
      'budgets',
      'limits',
      'module_graph',
      'decision',
    ]);
    expect([line.caps, line.fs_sandbox, line.budgets, line.module_graph]).toEqual([
      ['FS', 'IO'],
      '/ws/ep1',
      { FS: 1000 },
      { digest: 'd', files: 1, bytes: 10 },
    ]);
  });
});
