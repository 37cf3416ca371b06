import { ailangRun, runEffectOf } from './ailang-run.js';

const refusal = (refused: string) => ({
  plan: 'world/effect-plan/v1',
  effects: [],
  finish: false,
  result: { ok: false, refused },
});
const run = (effect: string, payload: Record<string, unknown>) => ({
  plan: 'world/effect-plan/v1',
  effects: [{ id: 'e1', effect, scope: 'worktree', cost: 1, payload }],
  finish: false,
  result: null,
});
const PATH_RULE =
  'refused: it must be relative and non-empty, with no ".." segment and no leading "-"';
const ADMITS = 'ailang-run admits only: path, args_json, stdin, argv, caps';
const items = (n: number) => Array.from({ length: n }, (_, i) => `a${i}`);

describe('ailang-run plan payloads and effects (world-spec §3.5 [code])', () => {
  it.each([
    ['§2.5: path only, no op key', { path: 'hello.ail' }, run('Ailang.Run', { path: 'hello.ail' })],
    [
      '§11 scenario 18: caps ["IO","FS","Env"] → Ailang.RunEnv with caps sorted',
      { path: 'x.ail', caps: ['IO', 'FS', 'Env'] },
      run('Ailang.RunEnv', { path: 'x.ail', caps: ['Env', 'FS', 'IO'] }),
    ],
    [
      '§3.5: Net → Ailang.RunNet',
      { path: 'x.ail', caps: ['Net', 'IO'] },
      run('Ailang.RunNet', { path: 'x.ail', caps: ['IO', 'Net'] }),
    ],
    [
      '§3.5: a Declassify run stays Ailang.Run',
      { path: 'x.ail', caps: ['IO', 'Declassify'] },
      run('Ailang.Run', { path: 'x.ail', caps: ['Declassify', 'IO'] }),
    ],
    [
      'a Clock run (std/clock) stays Ailang.Run, caps sorted',
      { path: 'x.ail', caps: ['IO', 'Clock'] },
      run('Ailang.Run', { path: 'x.ail', caps: ['Clock', 'IO'] }),
    ],
    [
      '§3.5: every optional argument, in payload key order',
      {
        caps: ['IO'],
        argv: ['--caps=IO,Net', '-', '--', 'a b'],
        stdin: '1\n2\n',
        args_json: '{"n":1}',
        path: 'b.ail',
      },
      run('Ailang.Run', {
        path: 'b.ail',
        args_json: '{"n":1}',
        stdin: '1\n2\n',
        argv: ['--caps=IO,Net', '-', '--', 'a b'],
        caps: ['IO'],
      }),
    ],
    [
      '§3.5: empty stdin and empty argv are present, so carried',
      { path: 'b.ail', stdin: '', argv: [] },
      run('Ailang.Run', { path: 'b.ail', stdin: '', argv: [] }),
    ],
    [
      '§3.5: stdin at exactly 65536 bytes',
      { path: 'b.ail', stdin: 'x'.repeat(65536) },
      run('Ailang.Run', { path: 'b.ail', stdin: 'x'.repeat(65536) }),
    ],
    [
      '§3.5: 32 argv items of 1024 bytes',
      { path: 'b.ail', argv: Array.from({ length: 32 }, () => 'y'.repeat(1024)) },
      run('Ailang.Run', {
        path: 'b.ail',
        argv: Array.from({ length: 32 }, () => 'y'.repeat(1024)),
      }),
    ],
  ])('%s', (_name, args, expected) => {
    const plan = ailangRun.plan(args);
    expect(plan).toEqual(expected);
    expect(Object.keys(plan.effects[0]?.payload ?? {})).toEqual(
      Object.keys(expected.effects[0]?.payload ?? {}),
    );
  });

  it('never shares the caller arrays with the plan (the plan is a value)', () => {
    const args = { path: 'x.ail', caps: ['IO', 'FS'], argv: ['a'] };
    const plan = ailangRun.plan(args);
    expect(args.caps).toEqual(['IO', 'FS']);
    expect(plan.effects[0]?.payload.caps).not.toBe(args.caps);
    expect(plan.effects[0]?.payload.argv).not.toBe(args.argv);
  });
});

describe('ailang-run plan refusals (world-spec §3.5, §11 scenario 18)', () => {
  it.each([
    [
      '§11 scenario 18: Env with Net',
      { path: 'x.ail', caps: ['IO', 'Env', 'Net'] },
      'caps names both Env and Net; one run takes at most one of them',
    ],
    [
      '§11 scenario 18: a cap twice',
      { path: 'x.ail', caps: ['IO', 'IO'] },
      'capability "IO" is listed twice',
    ],
    [
      '§11 scenario 18: empty caps',
      { path: 'x.ail', caps: [] },
      'argument "caps" names no capability',
    ],
    [
      '§11 scenario 18: an unknown cap',
      { path: 'x.ail', caps: ['Process'] },
      'unknown capability "Process"; caps admits only: Clock, Declassify, Env, FS, IO, Net',
    ],
    [
      '§3.5: caps are case-sensitive',
      { path: 'x.ail', caps: ['io'] },
      'unknown capability "io"; caps admits only: Clock, Declassify, Env, FS, IO, Net',
    ],
    [
      '§11 scenario 18: 33 argv items',
      { path: 'x.ail', argv: items(33) },
      'argument "argv" has 33 items; the limit is 32',
    ],
    [
      '§11 scenario 18: args_json not JSON',
      { path: 'x.ail', args_json: '{not json' },
      'argument "args_json" must be a string holding JSON',
    ],
    [
      '§3.5: args_json empty',
      { path: 'x.ail', args_json: '' },
      'argument "args_json" must be a string holding JSON',
    ],
    [
      '§3.5: args_json not a string',
      { path: 'x.ail', args_json: 3 },
      'argument "args_json" must be a string',
    ],
    [
      '§3.5: args_json null',
      { path: 'x.ail', args_json: null },
      'argument "args_json" must be a string',
    ],
    ['§3.5: stdin not a string', { path: 'x.ail', stdin: 5 }, 'argument "stdin" must be a string'],
    [
      '§3.5: stdin one byte over',
      { path: 'x.ail', stdin: 'x'.repeat(65537) },
      'argument "stdin" is 65537 bytes; the limit is 65536',
    ],
    [
      '§3.5: stdin size counts UTF-8 bytes, not characters',
      { path: 'x.ail', stdin: 'é'.repeat(32769) },
      'argument "stdin" is 65538 bytes; the limit is 65536',
    ],
    [
      '§3.5: argv not an array',
      { path: 'x.ail', argv: 'a b' },
      'argument "argv" must be an array of strings',
    ],
    [
      '§3.5: an argv item not a string',
      { path: 'x.ail', argv: ['a', 1] },
      'argument "argv" must be an array of strings',
    ],
    [
      '§3.5: an argv item over 1024 bytes',
      { path: 'x.ail', argv: ['y'.repeat(1025)] },
      'an argv item is 1025 bytes; the limit is 1024',
    ],
    [
      '§3.5: argv item bytes are UTF-8 bytes',
      { path: 'x.ail', argv: ['€'.repeat(342)] },
      'an argv item is 1026 bytes; the limit is 1024',
    ],
    [
      '§3.5: an argv item with NUL',
      { path: 'x.ail', argv: ['a\u0000b'] },
      'an argv item contains a NUL byte',
    ],
    [
      '§3.5: caps not an array',
      { path: 'x.ail', caps: 'IO,Net' },
      'argument "caps" must be an array of capability names',
    ],
    [
      '§3.5: a cap not a string',
      { path: 'x.ail', caps: ['IO', 1] },
      'argument "caps" must be an array of capability names',
    ],
    [
      '§3.5: an unknown key',
      { path: 'x.ail', env: { A: '1' } },
      `unknown argument "env"; ${ADMITS}`,
    ],
    ['§3.5: path missing', { caps: ['IO'] }, 'missing required argument "path"'],
    ['§3.5: path not a string', { path: ['x.ail'] }, 'argument "path" must be a string'],
    ['§3.5: a path refusal', { path: '-policy.ail' }, `path "-policy.ail" ${PATH_RULE}`],
  ])('%s', (_name, args, refused) => {
    expect(ailangRun.plan(args)).toEqual(refusal(refused));
  });

  it.each([
    [
      'unknown key before everything',
      { env: 1, path: 3, caps: [] },
      `unknown argument "env"; ${ADMITS}`,
    ],
    [
      'path type before args_json type',
      { path: 3, args_json: 4 },
      'argument "path" must be a string',
    ],
    [
      'args_json type before the path rule',
      { path: '/x.ail', args_json: 4 },
      'argument "args_json" must be a string',
    ],
    [
      'the path rule before args_json JSON',
      { path: '/x.ail', args_json: '{' },
      `path "/x.ail" ${PATH_RULE}`,
    ],
    [
      'args_json JSON before stdin',
      { path: 'x.ail', args_json: '{', stdin: 1 },
      'argument "args_json" must be a string holding JSON',
    ],
    [
      'stdin before argv',
      { path: 'x.ail', stdin: 1, argv: 'a' },
      'argument "stdin" must be a string',
    ],
    [
      'argv count before item checks',
      { path: 'x.ail', argv: [...items(32), 7] },
      'argument "argv" has 33 items; the limit is 32',
    ],
    [
      'items in order: size of the first before NUL of the second',
      { path: 'x.ail', argv: ['y'.repeat(1025), '\u0000'] },
      'an argv item is 1025 bytes; the limit is 1024',
    ],
    [
      'items in order: NUL of the first before type of the second',
      { path: 'x.ail', argv: ['\u0000', 2] },
      'an argv item contains a NUL byte',
    ],
    [
      'argv before caps',
      { path: 'x.ail', argv: 'a', caps: [] },
      'argument "argv" must be an array of strings',
    ],
    [
      'caps in order: unknown before duplicate',
      { path: 'x.ail', caps: ['Process', 'IO', 'IO'] },
      'unknown capability "Process"; caps admits only: Clock, Declassify, Env, FS, IO, Net',
    ],
    [
      'caps in order: duplicate before Env+Net',
      { path: 'x.ail', caps: ['Env', 'Net', 'Env'] },
      'capability "Env" is listed twice',
    ],
    [
      'caps in order: a duplicate before a later non-string',
      { path: 'x.ail', caps: ['IO', 'IO', 3] },
      'capability "IO" is listed twice',
    ],
  ])('§3.5 check order: %s', (_name, args, refused) => {
    expect(ailangRun.plan(args)).toEqual(refusal(refused));
  });
});

describe('runEffectOf (world-spec §3.5)', () => {
  it.each([
    [undefined, 'Ailang.Run'],
    [['IO', 'FS'], 'Ailang.Run'],
    [['Declassify'], 'Ailang.Run'],
    [['Clock', 'IO'], 'Ailang.Run'],
    [['Env', 'IO'], 'Ailang.RunEnv'],
    [['FS', 'Net'], 'Ailang.RunNet'],
  ])('%j → %s', (caps, effect) => {
    expect(runEffectOf(caps)).toBe(effect);
  });
});
