import { ailangEdit } from './ailang-edit.js';

const refusal = (refused: string) => ({
  plan: 'world/effect-plan/v1',
  effects: [],
  finish: false,
  result: { ok: false, refused },
});
const PATH_RULE =
  'refused: it must be relative and non-empty, with no ".." segment and no leading "-"';

describe('ailang-edit plan (world-spec §3.3)', () => {
  it('plans one Workspace.Write edit with both texts', () => {
    expect(ailangEdit.plan({ path: 'hello.ail', old_text: 'hello', new_text: 'bye' })).toEqual({
      plan: 'world/effect-plan/v1',
      effects: [
        {
          id: 'e1',
          effect: 'Workspace.Write',
          scope: 'worktree',
          cost: 1,
          payload: { op: 'edit', path: 'hello.ail', old_text: 'hello', new_text: 'bye' },
        },
      ],
      finish: false,
      result: null,
    });
  });

  it.each([
    [
      '§3.3: an unknown key',
      { path: 'a.ail', old: 'x', new_text: 'y' },
      refusal('unknown argument "old"; ailang-edit admits only: path, old_text, new_text'),
    ],
    [
      '§3.3: new_text missing',
      { path: 'a.ail', old_text: 'x' },
      refusal('missing required argument "new_text"'),
    ],
    [
      '§3.0: old_text missing',
      { path: 'a.ail', new_text: 'y' },
      refusal('missing required argument "old_text"'),
    ],
    [
      '§3.0: old_text not a string',
      { path: 'a.ail', old_text: null, new_text: 'y' },
      refusal('argument "old_text" must be a string'),
    ],
    [
      '§3.0: new_text not a string',
      { path: 'a.ail', old_text: 'x', new_text: 3 },
      refusal('argument "new_text" must be a string'),
    ],
    [
      '§3.3: a path refusal',
      { path: 'a/..', old_text: 'x', new_text: 'y' },
      refusal(`path "a/.." ${PATH_RULE}`),
    ],
    [
      '§3.0 order: old_text before new_text',
      { path: 'a.ail' },
      refusal('missing required argument "old_text"'),
    ],
  ])('%s', (_name, args, expected) => {
    expect(ailangEdit.plan(args)).toEqual(expected);
  });
});
