import { PlanLawError } from '@world/contracts';
import type { Ref } from '@world/canonical';
import type { EffectPlan } from '@world/tools';
import { composeOutput } from './compose-output.js';

const planRef = `sha256:${'1'.repeat(64)}` as Ref;
const record = `sha256:${'2'.repeat(64)}` as Ref;
const effectful: EffectPlan = {
  plan: 'world/effect-plan/v1',
  effects: [
    {
      id: 'e1',
      effect: 'Workspace.Read',
      scope: 'worktree',
      cost: 1,
      payload: { op: 'read', path: 'a' },
    },
  ],
  finish: false,
  result: null,
};
const refusal: EffectPlan = {
  plan: 'world/effect-plan/v1',
  effects: [],
  finish: false,
  result: { ok: false, refused: 'missing required argument "path"' },
};

describe('composeOutput (world-spec §4.4, world-internals §5.4)', () => {
  it.each([
    [
      '(A) success: handler output plus the world block',
      effectful,
      { id: 'e1', status: 'ok' as const, record, output: { ok: true, content: 'x' } },
      null,
      {
        ok: true,
        content: 'x',
        world: { effects: [{ id: 'e1', status: 'ok', record }], plan: planRef },
      },
    ],
    [
      '(B) plan refusal: the plan result plus an empty effects list',
      refusal,
      null,
      null,
      {
        ok: false,
        refused: 'missing required argument "path"',
        world: { effects: [], plan: planRef },
      },
    ],
    [
      '(C) handler refusal: an ok:false output with status ok',
      effectful,
      { id: 'e1', status: 'ok' as const, record, output: { ok: false, refused: 'r' } },
      null,
      {
        ok: false,
        refused: 'r',
        world: { effects: [{ id: 'e1', status: 'ok', record }], plan: planRef },
      },
    ],
    [
      '(D) denial without finish: the world block alone',
      effectful,
      { id: 'e1', status: 'denied' as const, record, output: null },
      null,
      { world: { effects: [{ id: 'e1', status: 'denied', record }], plan: planRef } },
    ],
    [
      '(E) failure without finish: the world block alone',
      effectful,
      { id: 'e1', status: 'failed' as const, record, output: null },
      null,
      { world: { effects: [{ id: 'e1', status: 'failed', record }], plan: planRef } },
    ],
    [
      'finish phase: its output replaces the handler output',
      { ...effectful, finish: true },
      { id: 'e1', status: 'denied' as const, record, output: null },
      { ok: false, status: 'denied', refused: 'the Ailang.Check effect ended denied' },
      {
        ok: false,
        status: 'denied',
        refused: 'the Ailang.Check effect ended denied',
        world: { effects: [{ id: 'e1', status: 'denied', record }], plan: planRef },
      },
    ],
  ])('%s', (_name, plan, effect, finish, expected) => {
    expect(composeOutput(plan, planRef, effect, finish)).toEqual(expected);
  });

  it('refuses a body that carries the reserved world key (plan law L6)', () => {
    expect(() =>
      composeOutput(
        effectful,
        planRef,
        { id: 'e1', status: 'ok', record, output: { world: 1 } },
        null,
      ),
    ).toThrow(
      new PlanLawError(
        'plan law L6: the reserved key "world" appears in a transition or handler output',
      ),
    );
  });
});
