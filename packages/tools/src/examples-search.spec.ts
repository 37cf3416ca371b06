import { examplesSearch } from './examples-search.js';

const refusal = (refused: string) => ({
  plan: 'world/effect-plan/v1',
  effects: [],
  finish: false,
  result: { ok: false, refused },
});

describe('examples-search plan (world-spec §3.7)', () => {
  it('plans one Ailang.Discover examples_search with the query', () => {
    expect(examplesSearch.plan({ query: 'fold' })).toEqual({
      plan: 'world/effect-plan/v1',
      effects: [
        {
          id: 'e1',
          effect: 'Ailang.Discover',
          scope: 'worktree',
          cost: 1,
          payload: { op: 'examples_search', query: 'fold' },
        },
      ],
      finish: false,
      result: null,
    });
  });

  it.each([
    ['§3.7: query missing', {}, refusal('missing required argument "query"')],
    [
      '§3.7: an unknown key (no limit)',
      { query: 'fold', limit: 3 },
      refusal('unknown argument "limit"; examples-search admits only: query'),
    ],
    ['§3.0: query not a string', { query: ['fold'] }, refusal('argument "query" must be a string')],
    ['§3.0 step 4', 42, refusal('arguments must be a JSON object')],
  ])('%s', (_name, args, expected) => {
    expect(examplesSearch.plan(args)).toEqual(expected);
  });
});
