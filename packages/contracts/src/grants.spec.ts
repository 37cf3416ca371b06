import { grantDenial, sessionStatus, type GrantOffer } from './grants.js';
import { carriesReservedKey, RESERVED_OUTPUT_KEY } from './reserved-key.js';

const offer: GrantOffer = {
  effect: 'Workspace.Write',
  scope: 'worktree',
  expiresAt: 2_000,
  remaining: 3,
};
const ask = { effect: 'Workspace.Write', scope: 'worktree', cost: 1, now: 1_000 };

describe('grantDenial (world-internals §5.1 frozen order; world-spec §2.7–§2.8)', () => {
  it.each<[string, Partial<GrantOffer>, Partial<typeof ask>, string | null]>([
    ['§5.1 a live grant with budget left pays', {}, {}, null],
    ['§2.8 cost equal to what is left pays', { remaining: 1 }, {}, null],
    ['§2.7 access cost 0 on a budget-0 grant pays', { remaining: 0 }, { cost: 0 }, null],
    ['§5.1 another effect name', { effect: 'Workspace.Read' }, {}, 'denied:effect-name'],
    [
      '§2.7 the effect name is case-sensitive',
      { effect: 'workspace.write' },
      {},
      'denied:effect-name',
    ],
    ['§2.7 scope is exact (no globs)', { scope: 'work*' }, {}, 'denied:scope'],
    ['§5.1 name is checked before scope', { effect: 'X', scope: 'y' }, {}, 'denied:effect-name'],
    ['§2.8 now = expiresAt is no longer live', { expiresAt: 1_000 }, {}, 'denied:expired'],
    ['§2.8 a negative now is never live', {}, { now: -1 }, 'denied:expired'],
    ['§5.1 expiry is checked before budget', { expiresAt: 10, remaining: 0 }, {}, 'denied:expired'],
    ['§2.8 cost over what is left', { remaining: 0 }, {}, 'denied:budget'],
    ['§2.8 a negative cost', {}, { cost: -1 }, 'denied:budget'],
    ['§2.8 a negative remaining', { remaining: -1 }, { cost: 0 }, 'denied:budget'],
  ])('%s → %s', (_row, grant, over, expected) => {
    expect(grantDenial({ ...offer, ...grant }, { ...ask, ...over })).toBe(expected);
  });
});

describe('sessionStatus (world-spec §2.2)', () => {
  it.each<[string, { expiresAt: number; revokedAt?: number | null }, number, string]>([
    ['live before its expiry', { expiresAt: 2_000, revokedAt: null }, 1_999, 'live'],
    [
      'expired at its expiry (now ≥ expiresAt)',
      { expiresAt: 2_000, revokedAt: null },
      2_000,
      'expired',
    ],
    ['revoked wins over live', { expiresAt: 2_000, revokedAt: 500 }, 1_000, 'revoked'],
    ['revoked wins over expired', { expiresAt: 2_000, revokedAt: 500 }, 3_000, 'revoked'],
    ['a wire session (no revokedAt) is live or expired', { expiresAt: 2_000 }, 1_000, 'live'],
  ])('%s', (_row, session, now, expected) => {
    expect(sessionStatus(session, now)).toBe(expected);
  });
});

describe('carriesReservedKey (plan law L6, world-internals §5.4)', () => {
  it.each<[string, object, boolean]>([
    ['an output with the world key', { world: {} }, true],
    ['the world key with any value, even undefined', { world: undefined }, true],
    ['an output without it', { ok: true, content: 'x' }, false],
    [
      'a key only on the prototype is not the output’s own',
      Object.create({ world: 1 }) as object,
      false,
    ],
    ['another case of the key is not reserved', { World: 1 }, false],
  ])('%s → %s', (_row, output, expected) => {
    expect(carriesReservedKey(output)).toBe(expected);
  });
  it('names the key the planner adds', () => {
    expect(RESERVED_OUTPUT_KEY).toBe('world');
  });
});
