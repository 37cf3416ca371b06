import { admits } from './admits.js';

const access = { effect: 'Workspace.Read', scope: 'worktree', cost: 0 };
const grant = (
  over: Partial<{ effect: string; scope: string; budget: number; expiresAt: number }> = {},
) => ({
  effect: 'Workspace.Read',
  scope: 'worktree',
  budget: 5,
  expiresAt: 2_000,
  ...over,
});

describe('admits (world-spec §2.7 visibility, §11 scenario 10)', () => {
  it.each([
    ['a live grant for the effect and scope', [grant()], true],
    ['a budget-0 grant (access cost is 0)', [grant({ budget: 0 })], true],
    ['no grant', [], false],
    ['a grant for another effect', [grant({ effect: 'Workspace.Write' })], false],
    ['a grant for another scope', [grant({ scope: 'world' })], false],
    ['an expired grant (now = expiresAt is no longer live)', [grant({ expiresAt: 1_000 })], false],
    ['one expired and one live grant', [grant({ expiresAt: 10 }), grant()], true],
  ])('%s → %s', (_name, grants, expected) => {
    expect(admits(access, grants, 1_000)).toBe(expected);
  });

  it('needs the budget to cover a non-zero access cost', () => {
    expect(admits({ ...access, cost: 1 }, [grant({ budget: 0 })], 1_000)).toBe(false);
    expect(admits({ ...access, cost: 1 }, [grant({ budget: 1 })], 1_000)).toBe(true);
  });
});
