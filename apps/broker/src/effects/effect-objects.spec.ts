import { refOf } from '@world/canonical';
import {
  effectRecord,
  effectRecordObject,
  effectRequestObject,
  effectResultObject,
} from './effect-objects.js';

const ask = { effect: 'Workspace.Read', scope: 'worktree', cost: 1 };
const requestRef = `sha256:${'1'.repeat(64)}`;
const resultRef = `sha256:${'2'.repeat(64)}`;

describe('effect records by the three-arm law (world-internals §5.2, world-spec §2.8)', () => {
  it.each([
    [
      'succeeded',
      { arm: 'succeeded' as const, budgetBefore: 5, resultRef },
      { budgetAfter: 4, allowed: true, failed: false, denial: '', resultRef },
    ],
    [
      'failed',
      { arm: 'failed' as const, budgetBefore: 5 },
      { budgetAfter: 4, allowed: true, failed: true, denial: '', resultRef: '' },
    ],
    [
      'denied',
      { arm: 'denied' as const, budgetBefore: 0, denial: 'denied:budget' as const },
      { budgetAfter: 0, allowed: false, failed: false, denial: 'denied:budget', resultRef: '' },
    ],
  ])('builds the %s arm', (_name, arm, expected) => {
    expect(effectRecord(ask, requestRef, arm)).toEqual({
      ...ask,
      budgetBefore: arm.budgetBefore,
      requestRef,
      ...expected,
    });
  });

  it('encodes the record as canonical JSON with exactly the ten fields', () => {
    const object = effectRecordObject(
      effectRecord(ask, requestRef, { arm: 'failed', budgetBefore: 3 }),
    );
    expect(object.semanticId).toBe('world/effect-record/v1');
    expect(object.provenance).toBe('host/broker');
    expect(object.payload.toString()).toBe(
      `{"allowed":true,"budgetAfter":2,"budgetBefore":3,"cost":1,"denial":"","effect":"Workspace.Read","failed":true,"requestRef":"${requestRef}","resultRef":"","scope":"worktree"}`,
    );
    expect(object.hash).toBe(refOf(object.payload));
  });

  it('encodes the request as canonical JSON of {effect, scope, cost, now, payload}', () => {
    const object = effectRequestObject({ ...ask, now: 1700, payload: { path: 'a', op: 'read' } });
    expect(object.semanticId).toBe('world/effect-request/v1');
    expect(object.payload.toString()).toBe(
      '{"cost":1,"effect":"Workspace.Read","now":1700,"payload":{"op":"read","path":"a"},"scope":"worktree"}',
    );
  });

  it('encodes the result as the canonical handler output', () => {
    expect(effectResultObject({ ok: true, content: 'x' }).payload.toString()).toBe(
      '{"content":"x","ok":true}',
    );
  });
});
