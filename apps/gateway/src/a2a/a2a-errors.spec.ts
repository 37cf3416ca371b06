import {
  BadRequestError,
  CommitUncertainError,
  DeadlineExceededError,
  DuplicateInvocationError,
  EffectsUnrecordedError,
  InternalError,
  InvalidSessionError,
  InvocationInFlightError,
  InvocationNotCommittedError,
  LeaseLostError,
  NoHandlerError,
  NotFoundError,
  PayloadTooLargeError,
  PlanLawError,
  ServiceUnavailableError,
  SessionAbsentError,
  SessionExpiredError,
  SessionUnknownError,
  StoredObjectCorruptError,
  TransitionPinMismatchError,
  TransportTimeoutError,
  UncertainError,
  UnknownToolError,
  type WorldError,
} from '@world/contracts';
import { a2aErrorOf, mcpErrorOf, restErrorOf } from '../errors/error-map.js';

const R1 = `sha256:${'e'.repeat(64)}`;
const R2 = `sha256:${'d'.repeat(64)}`;
const NOT_AVAILABLE = 'transition invocation is not available in this daemon';

describe('the A2A column of the error table (world-spec §6.1, §6.5)', () => {
  const rows: Array<[string, WorldError, number, string, boolean]> = [
    [
      '§4.5 EffectsUnrecorded lists every record',
      new EffectsUnrecordedError('a2a:ep1:t1', [R1, R2], 'world head moved'),
      -32603,
      `effects were requested but the invocation was not confirmed committed; effect records: ${R1} ${R2}`,
      false,
    ],
    [
      '§6.5 task id in flight',
      new InvocationInFlightError(),
      -32602,
      'task id already used in this session',
      false,
    ],
    [
      '§6.5 task id reused for other content at commit',
      new DuplicateInvocationError('a2a:ep1:t1'),
      -32602,
      'task id already used in this session',
      false,
    ],
    [
      '§6.5 known not committed',
      new InvocationNotCommittedError(),
      -32603,
      'invocation was not committed; send a new task id',
      false,
    ],
    [
      '§6.5 outcome uncertain',
      new UncertainError(),
      -32603,
      'invocation outcome is not confirmed; resend the same task id',
      false,
    ],
    [
      '§6.5 commit uncertain',
      new CommitUncertainError('reconcile'),
      -32603,
      'invocation outcome is not confirmed; resend the same task id',
      false,
    ],
    [
      '§6.5 skill not visible',
      new UnknownToolError('ailang-write'),
      -32602,
      'not authorized',
      false,
    ],
    [
      '§6.5 R8 no handler',
      new NoHandlerError(),
      -32603,
      'transition declares an effect this daemon has no handler for',
      false,
    ],
    [
      '§6.5 deadline (the service said so)',
      new DeadlineExceededError('planner phase ran out'),
      -32603,
      'invocation exceeded its deadline',
      true,
    ],
    [
      '§6.5 deadline (the transport gave up)',
      new TransportTimeoutError('planner.invoke did not answer within 21000 ms'),
      -32603,
      'invocation exceeded its deadline',
      true,
    ],
    [
      '§6.5 bad params never quote the request',
      new BadRequestError('argument "x\\n" is odd'),
      -32602,
      'invalid params',
      false,
    ],
    [
      '§6.5 transition_fn pin mismatch',
      new TransitionPinMismatchError(),
      -32602,
      'proposal does not match the registered transition',
      false,
    ],
    [
      '§6.5 capsule run failed',
      new PlanLawError('plan effect e1 has an id over 16 characters'),
      -32603,
      'transition execution failed',
      false,
    ],
    [
      '§6.5 integrity failure: a replay whose stored output was altered',
      new StoredObjectCorruptError(`object ${R1} has bytes that hash to ${R2}`),
      -32603,
      NOT_AVAILABLE,
      false,
    ],
    [
      '§6.5 body over 1 MiB',
      new PayloadTooLargeError('big'),
      -32600,
      'invalid JSON-RPC request',
      false,
    ],
    [
      '§6.1 absent session',
      new SessionAbsentError(),
      -32001,
      'session credential is absent: send Authorization: Bearer <session-credential>',
      false,
    ],
    [
      '§6.1 malformed header',
      new InvalidSessionError(),
      -32600,
      'malformed Authorization header: expected Bearer <64-hex-credential>',
      false,
    ],
    [
      '§6.1 unknown session',
      new SessionUnknownError(),
      -32001,
      'unknown session credential',
      false,
    ],
    [
      '§6.1 expired session',
      new SessionExpiredError(),
      -32001,
      'session credential has expired',
      false,
    ],
    [
      '§6.5 anything else: a lost lease',
      new LeaseLostError('ep1', 4),
      -32603,
      NOT_AVAILABLE,
      false,
    ],
    [
      '§6.5 anything else: a service down',
      new ServiceUnavailableError('no responders'),
      -32603,
      NOT_AVAILABLE,
      false,
    ],
    ['§6.5 anything else: internal', new InternalError('disk'), -32603, NOT_AVAILABLE, false],
    ['§6.5 anything else: not found', new NotFoundError('episode'), -32603, NOT_AVAILABLE, false],
  ];

  it.each(rows)('%s', (_row, error, code, message, closeConnection) => {
    expect(a2aErrorOf(error)).toEqual({ code, message, closeConnection, host: code === -32603 });
  });

  // A tool call keyed by its task id: an error that leaves the outcome unknown asks for the
  // same task id (world-internals §5.5, §12 #24); every other error answers as above.
  const keyedRows: Array<[string, WorldError, number, string, boolean]> = [
    [
      '§5.5 the wait for its planner ended at the deadline: the outcome is unknown',
      new TransportTimeoutError('planner.invoke did not answer within 21000 ms'),
      -32603,
      'invocation outcome is not confirmed; resend the same task id',
      true,
    ],
    [
      '§6.5 the service said its deadline ended before anything durable',
      new DeadlineExceededError('planner phase ran out'),
      -32603,
      'invocation exceeded its deadline',
      true,
    ],
    [
      '§6.5 outcome uncertain',
      new UncertainError(),
      -32603,
      'invocation outcome is not confirmed; resend the same task id',
      false,
    ],
    [
      '§4.5 EffectsUnrecorded lists every record',
      new EffectsUnrecordedError('a2a:ep1:t1', [R1], 'world head moved'),
      -32603,
      `effects were requested but the invocation was not confirmed committed; effect records: ${R1}`,
      false,
    ],
    [
      '§6.5 known not committed',
      new InvocationNotCommittedError(),
      -32603,
      'invocation was not committed; send a new task id',
      false,
    ],
    [
      '§6.5 a service down',
      new ServiceUnavailableError('no responders'),
      -32603,
      NOT_AVAILABLE,
      false,
    ],
  ];

  it.each(keyedRows)('a keyed tool call: %s', (_row, error, code, message, closeConnection) => {
    expect(a2aErrorOf(error, true)).toEqual({ code, message, closeConnection, host: true });
  });

  it('checks EffectsUnrecorded first, whatever else the error is (§4.5)', () => {
    class Odd extends EffectsUnrecordedError {
      override readonly errorClass = 'InvocationInFlight' as 'EffectsUnrecorded';
    }
    expect(a2aErrorOf(new Odd('a2a:ep1:t1', [R1], 'x'))).toEqual({
      code: -32603,
      message: `effects were requested but the invocation was not confirmed committed; effect records: ${R1}`,
      closeConnection: false,
      host: true,
    });
  });
});

describe('the coordinator rows keep the REST and MCP answers of an internal failure', () => {
  const rows: Array<[string, WorldError]> = [
    ['not committed', new InvocationNotCommittedError()],
    ['no handler', new NoHandlerError()],
    ['plan law', new PlanLawError('x')],
    ['effects unrecorded', new EffectsUnrecordedError('mcp:ep1:t', [R1], 'x')],
  ];
  it.each(rows)('%s: 500 internal store failure, MCP host callback failed', (_row, error) => {
    expect(restErrorOf(error)).toEqual({
      status: 500,
      body: { error: { class: 'Internal', message: 'internal store failure' } },
    });
    expect(mcpErrorOf(error)).toEqual({
      code: -32603,
      message: 'host callback failed',
      host: true,
    });
  });

  it('in flight: 500 internal store failure on REST, MCP -32602 task id already used (world-spec §4.6)', () => {
    const error = new InvocationInFlightError();
    expect([restErrorOf(error), mcpErrorOf(error)]).toEqual([
      { status: 500, body: { error: { class: 'Internal', message: 'internal store failure' } } },
      { code: -32602, message: 'task id already used in this session', host: false },
    ]);
  });
});
