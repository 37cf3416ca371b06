import { authorize, type AuthorizeInput } from './authorize.js';
import { effectRecord, effectRecordObject, effectRequestObject } from './effect-objects.js';
import { spendKey } from './spend-key.js';

const requestObject = effectRequestObject({
  effect: 'Workspace.Write',
  scope: 'worktree',
  cost: 2,
  now: 1_000,
  payload: { op: 'write', path: 'a.txt', content: 'x' },
});
const input = (budget: number): AuthorizeInput => ({
  episodeId: 'ep',
  invocationId: 'mcp:ep:t1',
  grants: [{ effect: 'Workspace.Write', scope: 'worktree', budget, expiresAt: 2_000 }],
  ask: { effect: 'Workspace.Write', scope: 'worktree', cost: 2, now: 1_000 },
  requestObject,
});
const spent = (n: number) => new Map([[spendKey('Workspace.Write', 'worktree'), n]]);

describe('authorize (world-internals §5.1–§5.2: the decision seeded with budget − spent)', () => {
  it('allows with the budget left after the spend, as the intent tx1 writes', () => {
    expect(authorize(input(10), spent(3))).toEqual({
      kind: 'allowed',
      objects: [requestObject],
      intent: {
        invocationId: 'mcp:ep:t1',
        effect: 'Workspace.Write',
        scope: 'worktree',
        cost: 2,
        requestRef: requestObject.hash,
        logicalTime: 1_000,
      },
      budgetBefore: 7,
    });
  });

  it('denies with denied:budget and the three-arm denied record when the spend leaves too little', () => {
    const record = effectRecord(
      { effect: 'Workspace.Write', scope: 'worktree', cost: 2 },
      requestObject.hash,
      { arm: 'denied', budgetBefore: 1, denial: 'denied:budget' },
    );
    const recordObject = effectRecordObject(record);
    expect(authorize(input(10), spent(9))).toEqual({
      kind: 'denied',
      objects: [requestObject, recordObject],
      record: { ref: recordObject.hash, episodeId: 'ep', invocationId: 'mcp:ep:t1', record },
      budgetBefore: 1,
      denial: 'denied:budget',
    });
  });

  it.each([
    ['no spend yet: the whole budget', new Map<string, number>(), 10],
    ['spend over the budget floors what is left at 0', spent(12), 0],
    [
      'spend of another scope does not count',
      new Map([[spendKey('Workspace.Write', 'other'), 9]]),
      10,
    ],
  ])('%s', (_row, spend, before) => {
    expect(authorize(input(10), spend).budgetBefore).toBe(before);
  });
});
