import {
  BadRequestError,
  CallerGoneError,
  CallCancelledError,
  DuplicateInvocationError,
  EffectsUnrecordedError,
  HeadConflictError,
  InternalError,
  InvocationInFlightError,
  InvocationNotCommittedError,
  LeaseLostError,
  MESSAGES,
  NotFoundError,
  SessionExpiredError,
  TransitionPinMismatchError,
  TransportTimeoutError,
  UncertainError,
  UnknownToolError,
  type WorldError,
} from './errors.js';
import { errorFromWire } from './errors-wire.js';

const REF = `sha256:${'a'.repeat(64)}`;

describe('wire errors (CONVENTIONS.md "Errors"): every class survives the wire with its details', () => {
  it.each<[string, WorldError]>([
    ['BadRequest', new BadRequestError('log index must be a non-negative integer')],
    ['NotFound', new NotFoundError('log entry not found')],
    ['SessionExpired', new SessionExpiredError()],
    ['HeadConflict', new HeadConflictError('', REF)],
    ['EffectsUnrecorded', new EffectsUnrecordedError('a2a:ep1:t1', [REF], 'commit failed')],
    ['LeaseLost', new LeaseLostError('ep1', 3)],
    ['CallerGone', new CallerGoneError('ep1', '0a1b2c3d4e5f6a7b')],
    ['CallCancelled', new CallCancelledError('mcp:ep1:k')],
    ['DuplicateInvocation', new DuplicateInvocationError('mcp:ep1:k')],
    ['InvocationInFlight', new InvocationInFlightError()],
    ['InvocationNotCommitted', new InvocationNotCommittedError()],
    ['Uncertain', new UncertainError()],
    ['UnknownTool', new UnknownToolError('ailang-write')],
    ['TransitionPinMismatch', new TransitionPinMismatchError()],
    ['TransportTimeout', new TransportTimeoutError('ledger.commit did not answer within 10 ms')],
  ])('%s', (errorClass, error) => {
    const wire = JSON.parse(JSON.stringify(error.toWire()));
    expect(wire.errorClass).toBe(errorClass);
    const restored = errorFromWire(wire);
    expect(restored).toBeInstanceOf(error.constructor);
    expect(restored.message).toBe(error.message);
    expect(restored.details()).toEqual(error.details());
  });

  it('carries the exact client texts of world-spec §4.5 and §6.5', () => {
    expect(new EffectsUnrecordedError('a2a:ep1:t1', [REF, REF], 'x').message).toBe(
      `effects were requested but the invocation was not confirmed committed; effect records: ${REF} ${REF}`,
    );
    expect(new UnknownToolError('ailang-write').message).toBe('unknown tool "ailang-write"');
    expect(new InvocationInFlightError().message).toBe(MESSAGES.taskIdUsed);
    expect(MESSAGES.taskIdUsed).toBe('task id already used in this session');
    expect(new InternalError().message).toBe('internal store failure');
  });

  it('restores an unknown class as Internal (fail closed)', () => {
    const restored = errorFromWire({ errorClass: 'Mystery', message: 'leaks /internal/path' });
    expect(restored).toBeInstanceOf(InternalError);
    expect(restored.message).toBe('internal store failure');
  });
});
