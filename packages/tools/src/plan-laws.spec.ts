import { PlanLawError } from '@world/contracts';
import { ailangRead } from './ailang-read.js';
import { ailangRun } from './ailang-run.js';
import { checkFinishOutput, checkPlan } from './plan-laws.js';

const effect = (over: Record<string, unknown> = {}) => ({
  id: 'e1',
  effect: 'Workspace.Read',
  scope: 'worktree',
  cost: 1,
  payload: { op: 'read', path: 'a.ail' },
  ...over,
});
const plan = (over: Record<string, unknown> = {}) => ({
  plan: 'world/effect-plan/v1',
  effects: [effect()],
  finish: false,
  result: null,
  ...over,
});
const refusal = {
  plan: 'world/effect-plan/v1',
  effects: [],
  finish: false,
  result: { ok: false, refused: 'no' },
};

/** The PlanLawError message checkPlan throws for a plan, or "" when it passes. */
function lawMessage(run: () => unknown): string {
  try {
    run();
    return '';
  } catch (err) {
    expect(err).toBeInstanceOf(PlanLawError);
    expect((err as PlanLawError).errorClass).toBe('PlanLaw');
    return (err as Error).message;
  }
}

describe('checkPlan admits lawful plans (world-internals §5.4)', () => {
  it.each([
    ['a one-effect plan', plan()],
    ['a refusal plan', refusal],
    ['a finish plan with its effect', plan({ finish: true })],
    [
      'a plan whose effect id is 16 characters',
      plan({ effects: [effect({ id: 'abcdefghij012345' })] }),
    ],
    [
      'a payload of exactly 1 MiB canonical JSON',
      plan({ effects: [effect({ payload: { a: 'x'.repeat(1048576 - 8) } })] }),
    ],
  ])('%s', (_name, p) => {
    expect(checkPlan(p, ailangRead)).toEqual(p);
  });

  it('admits each declared triple of ailang-run (RunEnv, RunNet)', () => {
    for (const name of ['Ailang.Run', 'Ailang.RunEnv', 'Ailang.RunNet']) {
      const p = plan({ effects: [effect({ effect: name, payload: { path: 'x.ail' } })] });
      expect(checkPlan(p, ailangRun)).toEqual(p);
    }
  });
});

describe('checkPlan refuses each violation with the law it breaks (world-internals §5.4)', () => {
  it.each([
    ['shape: not an object', [], 'plan law shape: the plan is not a JSON object'],
    ['shape: null', null, 'plan law shape: the plan is not a JSON object'],
    [
      'shape: an extra plan key',
      plan({ world: {} }),
      'plan law shape: plan key "world" is not part of world/effect-plan/v1',
    ],
    [
      'shape: a missing plan key',
      { plan: 'world/effect-plan/v1', effects: [], finish: false },
      'plan law shape: plan lacks key "result"',
    ],
    [
      'shape: a wrong format',
      plan({ plan: 'world/effect-plan/v2' }),
      'plan law shape: plan must be "world/effect-plan/v1"',
    ],
    [
      'shape: effects not an array',
      plan({ effects: {} }),
      'plan law shape: effects must be an array',
    ],
    [
      'shape: finish not a boolean',
      plan({ finish: 'yes' }),
      'plan law shape: finish must be a boolean',
    ],
    [
      'shape: result an array',
      { ...refusal, result: [] },
      'plan law shape: result must be null or a JSON object',
    ],
    [
      'shape: result not JSON',
      { ...refusal, result: { n: Number.NaN } },
      'plan law shape: result is not canonical JSON',
    ],
    [
      'shape: an effect not an object',
      plan({ effects: ['e1'] }),
      'plan law shape: effect 0 is not a JSON object',
    ],
    [
      'shape: an extra effect key',
      plan({ effects: [effect({ note: 'x' })] }),
      'plan law shape: effect 0 key "note" is not part of world/effect-plan/v1',
    ],
    [
      'shape: a missing effect key',
      plan({ effects: [{ id: 'e1', effect: 'Workspace.Read', scope: 'worktree', cost: 1 }] }),
      'plan law shape: effect 0 lacks key "payload"',
    ],
    [
      'L1: two effects',
      plan({ effects: [effect(), effect({ id: 'e2' })] }),
      'plan law L1: the plan has 2 effects; the limit is 1',
    ],
    [
      'L2: an upper-case id',
      plan({ effects: [effect({ id: 'E1' })] }),
      'plan law L2: effect 0 id "E1" must match ^[a-z0-9]{1,16}$',
    ],
    [
      'L2: an empty id',
      plan({ effects: [effect({ id: '' })] }),
      'plan law L2: effect 0 id "" must match ^[a-z0-9]{1,16}$',
    ],
    [
      'L2: a 17-character id',
      plan({ effects: [effect({ id: 'abcdefghij0123456' })] }),
      'plan law L2: effect 0 id "abcdefghij0123456" must match ^[a-z0-9]{1,16}$',
    ],
    [
      'L2: a numeric id',
      plan({ effects: [effect({ id: 1 })] }),
      'plan law L2: effect 0 id 1 must match ^[a-z0-9]{1,16}$',
    ],
    [
      'L2: a duplicate id',
      plan({ effects: [effect(), effect()] }),
      'plan law L2: effect id "e1" is used twice',
    ],
    [
      'L3: an undeclared effect name',
      plan({ effects: [effect({ effect: 'Workspace.Write' })] }),
      'plan law L3: effect 0 ("Workspace.Write", "worktree", 1) is not a declared effect of ailang-read',
    ],
    [
      'L3: another scope',
      plan({ effects: [effect({ scope: '/tmp' })] }),
      'plan law L3: effect 0 ("Workspace.Read", "/tmp", 1) is not a declared effect of ailang-read',
    ],
    [
      'L3: the access cost instead of the declared cost',
      plan({ effects: [effect({ cost: 0 })] }),
      'plan law L3: effect 0 ("Workspace.Read", "worktree", 0) is not a declared effect of ailang-read',
    ],
    [
      'L3: a cost given as a string',
      plan({ effects: [effect({ cost: '1' })] }),
      'plan law L3: effect 0 ("Workspace.Read", "worktree", "1") is not a declared effect of ailang-read',
    ],
    [
      'L4: payload an array',
      plan({ effects: [effect({ payload: [] })] }),
      'plan law L4: effect 0 payload must be a JSON object',
    ],
    [
      'L4: payload null',
      plan({ effects: [effect({ payload: null })] }),
      'plan law L4: effect 0 payload must be a JSON object',
    ],
    [
      'L4: payload not JSON',
      plan({ effects: [effect({ payload: { n: Number.POSITIVE_INFINITY } })] }),
      'plan law L4: effect 0 payload is not canonical JSON',
    ],
    [
      'L4: payload one byte over 1 MiB of canonical JSON',
      plan({ effects: [effect({ payload: { a: 'x'.repeat(1048576 - 7) } })] }),
      'plan law L4: effect 0 payload is 1048577 bytes of canonical JSON; the limit is 1048576',
    ],
    [
      'L6: result carries world',
      { ...refusal, result: { ok: false, refused: 'x', world: {} } },
      'plan law L6: the plan result carries the reserved key "world"',
    ],
    [
      'L7: no effects and a null result',
      { ...refusal, result: null },
      'plan law L7: a plan without effects must carry a result',
    ],
    [
      'L7: an effect and a result',
      plan({ result: { ok: true } }),
      'plan law L7: a plan with effects must carry a null result',
    ],
    [
      'L7: finish without an effect',
      { ...refusal, finish: true },
      'plan law L7: finish: true needs at least one effect',
    ],
  ])('%s', (_name, p, message) => {
    expect(lawMessage(() => checkPlan(p, ailangRead))).toBe(message);
  });
});

describe('checkFinishOutput (plan law L6, world-internals §5.4)', () => {
  it.each([
    ['a report', { ok: true, passed: true, error_count: 0, errors: [] }, ''],
    [
      'a failure',
      { ok: false, status: 'denied', refused: 'the Ailang.Check effect ended denied' },
      '',
    ],
    [
      'world',
      { ok: true, world: {} },
      'plan law L6: the finish output carries the reserved key "world"',
    ],
    ['effects', { count: 0, effects: [] }, 'plan law L6: the finish output carries "effects"'],
    ['not an object', 'done', 'plan law shape: the finish output is not a JSON object'],
    ['an array', [], 'plan law shape: the finish output is not a JSON object'],
    [
      'not JSON inside',
      { n: Number.NaN },
      'plan law shape: the finish output is not a JSON object',
    ],
  ])('%s', (_name, output, message) => {
    expect(lawMessage(() => checkFinishOutput(output))).toBe(message);
    if (message === '') expect(checkFinishOutput(output)).toBe(output);
  });
});
