import {
  CallCancelledError,
  BadRequestError,
  EffectsUnrecordedError,
  PlanLawError,
  UncertainError,
  UnknownToolError,
} from '@world/contracts';
import { committedOutcome, failedOutcome } from './call-outcome.js';

const REF = `sha256:${'a'.repeat(64)}`;
const world = (status?: string) => ({
  effects: status === undefined ? [] : [{ id: 'e1', status, record: REF }],
  plan: REF,
});

describe('committedOutcome', () => {
  it.each([
    ['world-spec §4.4 (A) success', { content: 'x', world: world('ok') }, 'ok'],
    ['world-spec §4.4 (A) success with ok:true', { ok: true, world: world('ok') }, 'ok'],
    [
      'world-spec §4.4 (B) plan refusal',
      { ok: false, refused: 'unknown argument "limit"', world: world() },
      'refused',
    ],
    [
      'world-spec §4.4 (C) handler refusal',
      { ok: false, refused: 'read x: escapes', world: world('ok') },
      'refused',
    ],
    ['world-spec §4.4 (D) denial, no finish', { world: world('denied') }, 'denied'],
    [
      'world-spec §4.4 (D) denial through a finish phase',
      { ok: false, status: 'denied', world: world('denied') },
      'denied',
    ],
    ['world-spec §4.4 (E) handler failure', { world: world('failed') }, 'failed'],
    [
      'world-spec §4.4 (E) failure through a finish phase',
      { ok: false, status: 'failed', world: world('failed') },
      'failed',
    ],
  ])('%s → %s', (_row, output, outcome) => {
    expect(committedOutcome(output)).toBe(outcome);
  });
});

describe('failedOutcome', () => {
  it.each([
    [
      'world-spec §4.5 EffectsUnrecorded',
      new EffectsUnrecordedError('mcp:e:t', [REF], 'commit failed'),
      'unrecorded',
    ],
    ['world-internals §5.5 Uncertain', new UncertainError(), 'unrecorded'],
    ['a client cancellation before the hand-off', new CallCancelledError('mcp:e:t'), 'cancelled'],
    ['an unknown tool', new UnknownToolError('nope'), 'failed'],
    ['a plan law violation', new PlanLawError('transition execution failed'), 'failed'],
    ['bad arguments', new BadRequestError('arguments are not JSON'), 'failed'],
    ['an untyped error', new Error('boom'), 'failed'],
  ])('%s → %s', (_row, err, outcome) => {
    expect(failedOutcome(err)).toBe(outcome);
  });
});
