import { ailangWrite } from './ailang-write.js';

const refusal = (refused: string) => ({
  plan: 'world/effect-plan/v1',
  effects: [],
  finish: false,
  result: { ok: false, refused },
});
const PATH_RULE =
  'refused: it must be relative and non-empty, with no ".." segment and no leading "-"';

describe('ailang-write plan (world-spec §3.2)', () => {
  it('plans one Workspace.Write carrying the whole content', () => {
    expect(ailangWrite.plan({ path: 'notes/todo.txt', content: 'first line\n' })).toEqual({
      plan: 'world/effect-plan/v1',
      effects: [
        {
          id: 'e1',
          effect: 'Workspace.Write',
          scope: 'worktree',
          cost: 1,
          payload: { op: 'write', path: 'notes/todo.txt', content: 'first line\n' },
        },
      ],
      finish: false,
      result: null,
    });
  });

  it('plans a write the handler will refuse: .git/ is policy, not plan (§11 scenario 14)', () => {
    expect(ailangWrite.plan({ path: '.git/config', content: 'x' }).effects).toEqual([
      {
        id: 'e1',
        effect: 'Workspace.Write',
        scope: 'worktree',
        cost: 1,
        payload: { op: 'write', path: '.git/config', content: 'x' },
      },
    ]);
  });

  it.each([
    [
      '§3.2: an unknown key',
      { path: 'a.txt', content: 'x', old_text: 'y' },
      refusal('unknown argument "old_text"; ailang-write admits only: path, content'),
    ],
    ['§3.2: content missing', { path: 'a.txt' }, refusal('missing required argument "content"')],
    ['§3.0: path missing', { content: 'x' }, refusal('missing required argument "path"')],
    [
      '§3.0: content not a string',
      { path: 'a.txt', content: 1 },
      refusal('argument "content" must be a string'),
    ],
    [
      '§3.0: path not a string',
      { path: false, content: 'x' },
      refusal('argument "path" must be a string'),
    ],
    [
      '§3.2: a path refusal',
      { path: 'a/../b', content: 'x' },
      refusal(`path "a/../b" ${PATH_RULE}`),
    ],
    [
      '§3.0 order: path type before content type',
      { path: 1, content: 2 },
      refusal('argument "path" must be a string'),
    ],
    [
      '§3.0 order: missing content (step 6) before the path rule (step 7)',
      { path: '/abs' },
      refusal('missing required argument "content"'),
    ],
    ['§3.0 step 4', 'a.txt', refusal('arguments must be a JSON object')],
  ])('%s', (_name, args, expected) => {
    expect(ailangWrite.plan(args)).toEqual(expected);
  });
});
