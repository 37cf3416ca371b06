import {
  admitArguments,
  checkPath,
  optionalPathRefusal,
  optionalStringRefusal,
  pathRefusal,
  requiredStringRefusal,
  soleEffectOutput,
} from './common.js';

const PATH_REFUSED = (p: string) =>
  `path "${p}" refused: it must be relative and non-empty, with no ".." segment and no leading "-"`;

describe('checkPath (world-spec §3.0 pathOk [code])', () => {
  it.each([
    ['src/main.ail', true, '§3.0 plain relative path'],
    ['main.ail', true, '§3.0'],
    ['..a/b.ail', true, '§3.0 a segment merely starting with ".." is legal'],
    ['a/..b.ail', true, '§3.0 a segment merely starting with ".." is legal'],
    ['a/b..', true, '§3.0 a segment merely ending with ".." is legal'],
    ['a/-b.ail', true, '§3.0 an inner "-" is legal'],
    ['./a.ail', true, '§3.0 "." segments are not ".." segments'],
    ['a//b.ail', true, '§3.0 confinement, not the plan, judges the rest'],
    ['..', false, '§3.0 the whole path is ".."'],
    ['../x', false, '§3.0 starts with "../"'],
    ['../x.ail', false, '§11 scenario 13'],
    ['a/..', false, '§3.0 ends with "/.."'],
    ['a/../b', false, '§3.0 contains "/../"'],
    ['a/../../b', false, '§3.0 contains "/../"'],
    ['/x', false, '§3.0 absolute'],
    ['/etc/hosts', false, '§11 scenario 13'],
    ['-x', false, '§3.0 leading "-" (flag injection, world-internals §12 incident 21)'],
    ['-policy.ail', false, 'world-internals §12 incident 21'],
    ['', false, '§3.0 empty'],
  ])('checkPath(%j) is %s (%s)', (path, ok) => {
    expect(checkPath(path)).toBe(ok);
    expect(pathRefusal(path)).toBe(ok ? undefined : PATH_REFUSED(path));
  });
});

describe('admitArguments (world-spec §3.0 steps 4-5)', () => {
  const names = ['path', 'content'];
  it.each([
    ['absent arguments', undefined, { refused: 'the input carries no args' }],
    ['null', null, { refused: 'arguments must be a JSON object' }],
    ['an array', ['path'], { refused: 'arguments must be a JSON object' }],
    ['a string', 'path', { refused: 'arguments must be a JSON object' }],
    ['a number', 7, { refused: 'arguments must be a JSON object' }],
    ['a boolean', true, { refused: 'arguments must be a JSON object' }],
    ['a class instance', new Date(0), { refused: 'arguments must be a JSON object' }],
    [
      'an unknown key',
      { path: 'a', limit: 5 },
      { refused: 'unknown argument "limit"; ailang-write admits only: path, content' },
    ],
    [
      'two unknown keys: the first in object order',
      { zeta: 1, path: 'a', alpha: 2 },
      { refused: 'unknown argument "zeta"; ailang-write admits only: path, content' },
    ],
    [
      'an own "__proto__" key as JSON.parse makes it',
      JSON.parse('{"__proto__":1}') as unknown,
      { refused: 'unknown argument "__proto__"; ailang-write admits only: path, content' },
    ],
  ])('%s', (_name, args, expected) => {
    expect(admitArguments('ailang-write', args, names)).toEqual(expected);
  });

  it('names an integer-like unknown key first whatever its place in the text (documented caveat)', () => {
    const args = JSON.parse('{"zeta":1,"7":2}') as unknown;
    expect(admitArguments('ailang-write', args, names)).toEqual({
      refused: 'unknown argument "7"; ailang-write admits only: path, content',
    });
  });

  it('admits an object holding only known keys, returning the same object', () => {
    const args = { path: 'a', content: 'b' };
    expect(admitArguments('ailang-write', args, names)).toEqual({ args });
  });
});

describe('string argument checks (world-spec §3.0 generic refusals)', () => {
  it.each([
    [{}, 'missing required argument "path"', undefined],
    [{ path: 7 }, 'argument "path" must be a string', 'argument "path" must be a string'],
    [{ path: null }, 'argument "path" must be a string', 'argument "path" must be a string'],
    [{ path: ['a'] }, 'argument "path" must be a string', 'argument "path" must be a string'],
    [{ path: '' }, undefined, undefined],
    [{ path: 'a.ail' }, undefined, undefined],
  ])('%j → required %s, optional %s', (args, required, optional) => {
    expect(requiredStringRefusal(args, 'path')).toBe(required);
    expect(optionalStringRefusal(args, 'path')).toBe(optional);
  });

  it.each([
    [{}, undefined],
    [{ package: 3 }, 'argument "package" must be a string'],
    [{ package: '../other' }, PATH_REFUSED('../other')],
    [{ package: 'pkg/a' }, undefined],
  ])('optional path %j → %s (world-spec §3.8)', (args, expected) => {
    expect(optionalPathRefusal(args, 'package')).toBe(expected);
  });
});

describe('soleEffectOutput (world-spec §3.4 finish failures [code])', () => {
  const ok = {
    id: 'e1',
    effect: 'Ailang.Check',
    status: 'ok',
    record: 'sha256:x',
    output: { ok: true },
  };
  it.each([
    [
      'results absent',
      undefined,
      { failure: { ok: false, status: '', refused: 'the finish input carries no results' } },
    ],
    [
      'results not an array',
      { 0: ok },
      { failure: { ok: false, status: '', refused: 'results must be a JSON array' } },
    ],
    [
      'no result',
      [],
      { failure: { ok: false, status: '', refused: 'expected exactly one effect result' } },
    ],
    [
      'two results',
      [ok, ok],
      { failure: { ok: false, status: '', refused: 'expected exactly one effect result' } },
    ],
    [
      'denied',
      [{ ...ok, status: 'denied', output: null }],
      { failure: { ok: false, status: 'denied', refused: 'the Ailang.Check effect ended denied' } },
    ],
    [
      'failed',
      [{ ...ok, status: 'failed', output: null }],
      { failure: { ok: false, status: 'failed', refused: 'the Ailang.Check effect ended failed' } },
    ],
    [
      'ok without output (null)',
      [{ ...ok, output: null }],
      { failure: { ok: false, status: 'ok', refused: 'the effect result carries no output' } },
    ],
    [
      'ok without output (key absent)',
      [{ id: 'e1', effect: 'Ailang.Check', status: 'ok', record: 'sha256:x' }],
      { failure: { ok: false, status: 'ok', refused: 'the effect result carries no output' } },
    ],
    ['ok with output', [ok], { output: { ok: true } }],
  ])('%s', (_name, results, expected) => {
    expect(soleEffectOutput('Ailang.Check', results)).toEqual(expected);
  });
});
