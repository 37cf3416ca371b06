import { ailangRead } from './ailang-read.js';

const refusal = (refused: string) => ({
  plan: 'world/effect-plan/v1',
  effects: [],
  finish: false,
  result: { ok: false, refused },
});
const read = (path: string) => ({
  plan: 'world/effect-plan/v1',
  effects: [
    {
      id: 'e1',
      effect: 'Workspace.Read',
      scope: 'worktree',
      cost: 1,
      payload: { op: 'read', path },
    },
  ],
  finish: false,
  result: null,
});
const PATH_RULE =
  'refused: it must be relative and non-empty, with no ".." segment and no leading "-"';

describe('ailang-read plan (world-spec §3.1)', () => {
  it.each([
    ['§11 scenario 12: a relative path', { path: 'hello.ail' }, read('hello.ail')],
    ['§3.0: a segment starting with ".."', { path: '..a/b.ail' }, read('..a/b.ail')],
    [
      '§11 scenario 13: an unknown key',
      { path: 'hello.ail', limit: 5 },
      refusal('unknown argument "limit"; ailang-read admits only: path'),
    ],
    ['§11 scenario 13: "../x.ail"', { path: '../x.ail' }, refusal(`path "../x.ail" ${PATH_RULE}`)],
    [
      '§11 scenario 13: "/etc/hosts"',
      { path: '/etc/hosts' },
      refusal(`path "/etc/hosts" ${PATH_RULE}`),
    ],
    ['§11 scenario 13: "-x"', { path: '-x' }, refusal(`path "-x" ${PATH_RULE}`)],
    ['§11 scenario 13: ""', { path: '' }, refusal(`path "" ${PATH_RULE}`)],
    ['§11 scenario 13: {}', {}, refusal('missing required argument "path"')],
    ['§11 scenario 13: a number', { path: 7 }, refusal('argument "path" must be a string')],
    ['§3.0 step 4: an array', ['hello.ail'], refusal('arguments must be a JSON object')],
    ['§3.0 step 4: null', null, refusal('arguments must be a JSON object')],
    ['§3.0 step 4: absent', undefined, refusal('the input carries no args')],
    [
      '§3.0 order: the unknown key wins over a bad path',
      { path: '../x.ail', limit: 5 },
      refusal('unknown argument "limit"; ailang-read admits only: path'),
    ],
    [
      '§3.0 order: the unknown key wins over a missing path',
      { file: 'x.ail' },
      refusal('unknown argument "file"; ailang-read admits only: path'),
    ],
  ])('%s', (_name, args, expected) => {
    expect(ailangRead.plan(args)).toEqual(expected);
  });
});
