import { decide, type Decision, type EffectAsk, type GrantView } from './decide.js';

const ask: EffectAsk = { effect: 'Workspace.Read', scope: 'worktree', cost: 1, now: 1_000 };
const grant = (over: Partial<GrantView> = {}): GrantView => ({
  effect: 'Workspace.Read',
  scope: 'worktree',
  expiresAt: 2_000,
  remaining: 5,
  ...over,
});

describe('decide (world-internals §5.1 frozen order; world-spec §2.7, §2.8)', () => {
  const rows: Array<[string, GrantView[], Partial<EffectAsk>, Decision]> = [
    // world-spec §2.8 table, one row per label
    [
      'allows a matching live grant with budget',
      [grant()],
      {},
      { allowed: true, grantIndex: 0, remaining: 5 },
    ],
    [
      'denies with denied:effect-name when no grant names the effect',
      [grant({ effect: 'Workspace.Write' })],
      {},
      { allowed: false, label: 'denied:effect-name', remaining: 0 },
    ],
    [
      'denies with denied:effect-name when there are no grants (§5.1)',
      [],
      {},
      { allowed: false, label: 'denied:effect-name', remaining: 0 },
    ],
    [
      'denies with denied:scope when the scope differs (exact string, §2.7)',
      [grant({ scope: 'worktree/' })],
      {},
      { allowed: false, label: 'denied:scope', remaining: 0 },
    ],
    [
      'denies with denied:scope for a glob-looking scope (no globs, §5.1)',
      [grant({ scope: '*' })],
      {},
      { allowed: false, label: 'denied:scope', remaining: 0 },
    ],
    [
      'denies with denied:expired at now = expiresAt (exclusive, §5.1)',
      [grant({ expiresAt: 1_000 })],
      {},
      { allowed: false, label: 'denied:expired', remaining: 5 },
    ],
    [
      'denies with denied:expired for a negative now (0 ≤ now, §5.1)',
      [grant()],
      { now: -1 },
      { allowed: false, label: 'denied:expired', remaining: 5 },
    ],
    [
      'allows at now = 0 (0 ≤ now, §5.1)',
      [grant()],
      { now: 0 },
      { allowed: true, grantIndex: 0, remaining: 5 },
    ],
    [
      'denies with denied:budget when cost exceeds remaining (§2.8)',
      [grant({ remaining: 0 })],
      {},
      { allowed: false, label: 'denied:budget', remaining: 0 },
    ],
    [
      'allows cost equal to remaining (cost ≤ remaining, §5.1)',
      [grant({ remaining: 1 })],
      {},
      { allowed: true, grantIndex: 0, remaining: 1 },
    ],
    [
      'denies a budget-0 grant with denied:budget (§2.7)',
      [grant({ remaining: 0 })],
      { cost: 1 },
      { allowed: false, label: 'denied:budget', remaining: 0 },
    ],
    [
      'denies a negative cost with denied:budget (0 ≤ cost, §5.1)',
      [grant()],
      { cost: -1 },
      { allowed: false, label: 'denied:budget', remaining: 5 },
    ],
    // precedence (§5.1: effect-name < scope < expired < budget; furthest wins)
    [
      'reports scope over effect-name',
      [grant({ effect: 'X' }), grant({ scope: 'other' })],
      {},
      { allowed: false, label: 'denied:scope', remaining: 0 },
    ],
    [
      'reports expired over scope',
      [grant({ scope: 'other' }), grant({ expiresAt: 10 })],
      {},
      { allowed: false, label: 'denied:expired', remaining: 5 },
    ],
    [
      'reports budget over expired',
      [grant({ expiresAt: 10, remaining: 9 }), grant({ remaining: 0 })],
      {},
      { allowed: false, label: 'denied:budget', remaining: 0 },
    ],
    [
      'reports budget over expired whatever the grant order',
      [grant({ remaining: 0 }), grant({ expiresAt: 10, remaining: 9 })],
      {},
      { allowed: false, label: 'denied:budget', remaining: 0 },
    ],
    [
      'reports an expired grant whose budget is also short as expired (liveness is checked first)',
      [grant({ expiresAt: 10, remaining: 0 })],
      {},
      { allowed: false, label: 'denied:expired', remaining: 0 },
    ],
    [
      'on a tie reports the first grant that got furthest',
      [grant({ remaining: 1 }), grant({ remaining: 0 })],
      { cost: 2 },
      { allowed: false, label: 'denied:budget', remaining: 1 },
    ],
    [
      'lets the first fully allowed grant win',
      [grant({ remaining: 0 }), grant({ remaining: 3 }), grant({ remaining: 7 })],
      {},
      { allowed: true, grantIndex: 1, remaining: 3 },
    ],
    [
      'lets an allowed grant win over an earlier denial of any rank',
      [grant({ expiresAt: 10 }), grant({ effect: 'X' }), grant()],
      {},
      { allowed: true, grantIndex: 2, remaining: 5 },
    ],
  ];
  it.each(rows)('%s', (_name, grants, over, expected) => {
    expect(decide(grants, { ...ask, ...over })).toEqual(expected);
  });
});
