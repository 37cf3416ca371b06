import { checkReportOf, finishCheck, ailangCheck } from './ailang-check.js';
import type { EffectResult } from './types.js';

const refusal = (refused: string) => ({
  plan: 'world/effect-plan/v1',
  effects: [],
  finish: false,
  result: { ok: false, refused },
});
const PATH_RULE =
  'refused: it must be relative and non-empty, with no ".." segment and no leading "-"';
const RECORD = `sha256:${'ab'.repeat(32)}`;

describe('ailang-check plan (world-spec §3.4)', () => {
  it('plans one Ailang.Check ai_check with finish: true', () => {
    expect(ailangCheck.plan({ path: 'broken.ail' })).toEqual({
      plan: 'world/effect-plan/v1',
      effects: [
        {
          id: 'e1',
          effect: 'Ailang.Check',
          scope: 'worktree',
          cost: 1,
          payload: { op: 'ai_check', path: 'broken.ail' },
        },
      ],
      finish: true,
      result: null,
    });
  });

  it.each([
    [
      '§3.4: an unknown key',
      { path: 'a.ail', limit: 1 },
      'unknown argument "limit"; ailang-check admits only: path',
    ],
    ['§3.4: path missing', {}, 'missing required argument "path"'],
    ['§3.4: path not a string', { path: 1 }, 'argument "path" must be a string'],
    ['§3.4: a path refusal', { path: '../x.ail' }, `path "../x.ail" ${PATH_RULE}`],
    [
      '§3.0 order: unknown key before the path rule',
      { path: '/x', flags: {} },
      'unknown argument "flags"; ailang-check admits only: path',
    ],
  ])('%s', (_name, args, refused) => {
    expect(ailangCheck.plan(args)).toEqual(refusal(refused));
  });
});

/** One Ailang.Check effect result with the given status and handler output. */
const result = (
  status: EffectResult['status'],
  output: Record<string, unknown> | null,
): EffectResult => ({
  id: 'e1',
  effect: 'Ailang.Check',
  status,
  record: RECORD,
  output,
});
/** An `ailang ai-check` stdout (ailang.md §1.4) around the given check object. */
const aiCheck = (check: Record<string, unknown>) =>
  JSON.stringify({
    file: 'broken.ail',
    check,
    verify: { available: false, verified: 0, results: [] },
  });
const TYPE_ERROR =
  'type error in broken (decl 0): at literal at broken.ail:6:11: No instance for Num[string] in scope.';

describe('ailang-check finish (world-spec §3.4, world-internals §8.2)', () => {
  it.each([
    [
      '§3.4 example: a type error keeps only code, message and file',
      [
        result('ok', {
          ok: true,
          argv: ['ai-check', 'broken.ail'],
          exit_code: 1,
          stdout: aiCheck({
            passed: false,
            error_count: 1,
            errors: [
              {
                code: 'ERROR',
                message: TYPE_ERROR,
                file: 'broken.ail',
                line: 6,
                column: 11,
                suggestion: 's',
              },
            ],
          }),
          stderr: '',
        }),
      ],
      {
        ok: true,
        passed: false,
        error_count: 1,
        errors: [{ code: 'ERROR', message: TYPE_ERROR, file: 'broken.ail' }],
      },
    ],
    [
      '§3.4: success',
      [
        result('ok', {
          ok: true,
          argv: [],
          exit_code: 0,
          stdout: aiCheck({ passed: true, error_count: 0, errors: [] }),
          stderr: '',
        }),
      ],
      { ok: true, passed: true, error_count: 0, errors: [] },
    ],
    [
      'ailang.md §1.3: an omitted file becomes ""',
      [
        result('ok', {
          ok: true,
          stdout: aiCheck({
            passed: false,
            error_count: 1,
            errors: [{ code: 'TIMEOUT', message: 'compilation timed out after 30s' }],
          }),
        }),
      ],
      {
        ok: true,
        passed: false,
        error_count: 1,
        errors: [{ code: 'TIMEOUT', message: 'compilation timed out after 30s', file: '' }],
      },
    ],
    [
      '§11 scenario 17: a denied effect',
      [result('denied', null)],
      { ok: false, status: 'denied', refused: 'the Ailang.Check effect ended denied' },
    ],
    [
      '§4.4 (E): a failed effect',
      [result('failed', null)],
      { ok: false, status: 'failed', refused: 'the Ailang.Check effect ended failed' },
    ],
    [
      '§3.4: a policy refusal passes the handler text through',
      [
        result('ok', {
          ok: false,
          refused: 'read /etc/x.ail: path "/etc/x.ail" escapes sandbox "/w"',
        }),
      ],
      {
        ok: false,
        status: 'ok',
        refused: 'read /etc/x.ail: path "/etc/x.ail" escapes sandbox "/w"',
      },
    ],
    [
      '§3.4: no report and no refusal → the stderr',
      [result('ok', { ok: true, argv: [], exit_code: 2, stdout: 'panic', stderr: 'boom\n' })],
      { ok: false, status: 'ok', refused: 'ai_check returned no check report; stderr: boom\n' },
    ],
    [
      '§3.4: a report lacking error_count is no report',
      [result('ok', { ok: true, stdout: aiCheck({ passed: true, errors: [] }), stderr: '' })],
      { ok: false, status: 'ok', refused: 'ai_check returned no check report; stderr: ' },
    ],
    [
      '§3.4: no output',
      [result('ok', null)],
      { ok: false, status: 'ok', refused: 'the effect result carries no output' },
    ],
    [
      '§3.4: no result',
      [],
      { ok: false, status: '', refused: 'expected exactly one effect result' },
    ],
  ])('%s', (_name, results, expected) => {
    expect(finishCheck({ path: 'broken.ail' }, results)).toEqual(expected);
  });

  it('answers malformed finish input with the documented failures', () => {
    expect(finishCheck({}, undefined as unknown as EffectResult[])).toEqual({
      ok: false,
      status: '',
      refused: 'the finish input carries no results',
    });
    expect(finishCheck({}, 'x' as unknown as EffectResult[])).toEqual({
      ok: false,
      status: '',
      refused: 'results must be a JSON array',
    });
  });
});

describe('checkReportOf (ailang.md §1.4)', () => {
  it.each([
    ['not JSON', '{', null],
    ['JSON but not an object', '[1]', null],
    ['no check object', '{"file":"a"}', null],
    ['passed not a boolean', aiCheck({ passed: 'no', error_count: 0, errors: [] }), null],
    ['error_count not an integer', aiCheck({ passed: true, error_count: 0.5, errors: [] }), null],
    ['errors not an array', aiCheck({ passed: true, error_count: 0, errors: {} }), null],
    [
      'a clean report',
      aiCheck({ passed: true, error_count: 0, errors: [] }),
      { ok: true, passed: true, error_count: 0, errors: [] },
    ],
  ])('%s', (_name, stdout, expected) => {
    expect(checkReportOf(stdout)).toEqual(expected);
  });
});
