import { RunEnvelopeError } from '../errors.js';
import { classifyRunOutcome } from './outcome.js';

const admittedLine =
  'policy: {"ok":true,"policy":"p.toml","security_mode":"restricted","timeout_ms":8000,"decision":{"ok":true,"function":"main","declared_effects":["IO"],"allowed_caps":["FS","IO"]}}';
const decision = {
  ok: true,
  function: 'main',
  declared_effects: ['IO'],
  allowed_caps: ['FS', 'IO'],
};
const refused = {
  ok: false,
  error_kind: 'policy_violation',
  message: 'declared effects exceed policy',
  function: 'main',
  declared_effects: ['IO', 'Net'],
  allowed_caps: ['FS', 'IO'],
  missing_from_policy: ['Net'],
};
const limit = {
  version: 1,
  stage: 'execute',
  reason: 'timeout',
  message: 'exceeded timeout_ms (8s); worker process group killed',
  policy_digest: 'abc',
  security_mode: 'restricted',
};

describe('classifyRunOutcome (world-internals §8.2; results-and-errors.txt "ailang-run outcomes")', () => {
  it.each([
    [
      '(a) admitted: one policy line, decision.ok, program output',
      { exitCode: 0, stdout: 'hello from pi\n', stderr: `${admittedLine}\n` },
      { admitted: true, exit_code: 0, decision, limit: null },
    ],
    [
      '(a) any exit code is reported as-is (a refused inner effect can exit 0)',
      { exitCode: 42, stdout: '', stderr: `${admittedLine}\n` },
      { admitted: true, exit_code: 42, decision, limit: null },
    ],
    [
      '(b) admitted, refused at runtime: the reason before the policy line, rc 1',
      {
        exitCode: 1,
        stdout: '',
        stderr: `Error: execution failed: readFile: path "/etc/hosts" escapes sandbox "/w"\n${admittedLine}\n`,
      },
      { admitted: true, exit_code: 1, decision, limit: null },
    ],
    [
      '(c) refused before execution: decision JSON on stdout, empty stderr, rc 2',
      {
        exitCode: 2,
        stdout: JSON.stringify({ file: 'f.ail', policy: 'p.toml', decision: refused }, null, 2),
        stderr: '',
      },
      { admitted: false, exit_code: 2, decision: refused, limit: null },
    ],
    [
      '(c) read failure, rc 1',
      {
        exitCode: 1,
        stdout:
          '{"file":"nope.ail","decision":{"ok":false,"error_kind":"read_failed","message":"open nope.ail: no such file or directory"}}',
        stderr: '',
      },
      {
        admitted: false,
        exit_code: 1,
        decision: {
          ok: false,
          error_kind: 'read_failed',
          message: 'open nope.ail: no such file or directory',
        },
        limit: null,
      },
    ],
    [
      '(d) supervisor limit: policy line plus one policy-result line, rc 3',
      {
        exitCode: 3,
        stdout: 'partial',
        stderr: `${admittedLine}\npolicy-result: ${JSON.stringify(limit)}\n`,
      },
      { admitted: true, exit_code: 3, decision, limit },
    ],
  ])('%s', (_name, raw, expected) => {
    expect(classifyRunOutcome(raw)).toEqual({
      ...expected,
      stdout: raw.stdout,
      stderr: raw.stderr,
    });
  });

  it.each([
    [
      'no policy line and stderr text',
      { exitCode: 1, stdout: '', stderr: 'Error: --policy: --caps is not allowed with --policy\n' },
      'no policy line, and stderr is not empty',
    ],
    [
      'no policy line and exit 0',
      { exitCode: 0, stdout: '{"decision":{"ok":false}}', stderr: '' },
      'no policy line, and exit code 0',
    ],
    [
      'no policy line and stdout not JSON',
      { exitCode: 2, stdout: 'oops', stderr: '' },
      'no policy line, and stdout is not a JSON object',
    ],
    [
      'no policy line and an admitted decision on stdout',
      { exitCode: 2, stdout: '{"decision":{"ok":true}}', stderr: '' },
      'no policy line, and stdout carries no refused decision',
    ],
    [
      'two policy lines (a program printing its own)',
      { exitCode: 0, stdout: '', stderr: `${admittedLine}\n${admittedLine}\n` },
      '2 policy lines',
    ],
    [
      'a policy line that is not JSON',
      { exitCode: 0, stdout: '', stderr: 'policy: {oops\n' },
      'the policy line is not a JSON object',
    ],
    [
      'a policy line without an admitted decision',
      { exitCode: 0, stdout: '', stderr: 'policy: {"ok":true,"decision":{"ok":false}}\n' },
      'the policy line does not record an admitted decision',
    ],
    [
      'a policy-result line without a policy line',
      {
        exitCode: 1,
        stdout: '',
        stderr: `policy-result: ${JSON.stringify({ ...limit, reason: 'no_decision', stage: 'admit' })}\n`,
      },
      '0 policy lines',
    ],
    [
      'a limit without reason',
      { exitCode: 3, stdout: '', stderr: `${admittedLine}\npolicy-result: {"stage":"execute"}\n` },
      'the policy-result line lacks reason or stage',
    ],
    [
      'a limit with exit code 0',
      {
        exitCode: 0,
        stdout: '',
        stderr: `${admittedLine}\npolicy-result: ${JSON.stringify(limit)}\n`,
      },
      'a policy-result line with exit code 0, not 3',
    ],
    [
      'two policy-result lines',
      {
        exitCode: 3,
        stdout: '',
        stderr: `${admittedLine}\npolicy-result: ${JSON.stringify(limit)}\npolicy-result: ${JSON.stringify(limit)}\n`,
      },
      '2 policy-result lines',
    ],
  ])('throws RunEnvelopeError for %s', (_name, raw, why) => {
    let caught: unknown;
    try {
      classifyRunOutcome(raw);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(RunEnvelopeError);
    expect([(caught as RunEnvelopeError).message, (caught as RunEnvelopeError).raw]).toEqual([
      `ailang run returned an unrecognised outcome: ${why}`,
      raw,
    ]);
  });
});
