import {
  BadRequestError,
  CommitUncertainError,
  DeadlineExceededError,
  DuplicateInvocationError,
  EffectsUnrecordedError,
  ForbiddenError,
  HeadConflictError,
  InternalError,
  InvalidSessionError,
  InvocationInFlightError,
  LeaseLostError,
  NoHandlerError,
  NotFoundError,
  PayloadTooLargeError,
  ProjectionDeadlineExceededError,
  ProjectionUnavailableError,
  ServiceUnavailableError,
  ShuttingDownError,
  SessionAbsentError,
  SessionExpiredError,
  SessionUnknownError,
  StoredObjectCorruptError,
  TransportTimeoutError,
  UncertainError,
  UnknownToolError,
  type WorldError,
} from '@world/contracts';
import { InvalidRefError } from '@world/canonical';
import { asWorldError, mcpErrorOf, restErrorOf } from './error-map.js';

const HEAD = `sha256:${'a'.repeat(64)}`;

describe('the REST column of the error table (world-spec §5.1)', () => {
  const rows: Array<[string, WorldError, number, string, string]> = [
    [
      '§5.1 BadRequest',
      new BadRequestError('limit must be an integer'),
      400,
      'BadRequest',
      'limit must be an integer',
    ],
    [
      '§5.1 InvalidSession',
      new InvalidSessionError(),
      400,
      'InvalidSession',
      'malformed Authorization header: expected Bearer <64-hex-credential>',
    ],
    [
      '§5.1 SessionAbsent',
      new SessionAbsentError(),
      401,
      'SessionAbsent',
      'session credential is absent: send Authorization: Bearer <session-credential>',
    ],
    [
      '§5.1 SessionUnknown',
      new SessionUnknownError(),
      401,
      'SessionUnknown',
      'unknown session credential',
    ],
    [
      '§5.1 SessionExpired',
      new SessionExpiredError(),
      401,
      'SessionExpired',
      'session credential has expired',
    ],
    [
      'DESIGN.md §3 a credential that does not grant the route is Forbidden',
      new ForbiddenError('no commit grant'),
      403,
      'Forbidden',
      'no commit grant',
    ],
    [
      '§5.1 NotFound',
      new NotFoundError('log entry not found'),
      404,
      'NotFound',
      'log entry not found',
    ],
    [
      '§5.1 PayloadTooLarge',
      new PayloadTooLargeError('request body exceeds 8388608 bytes'),
      413,
      'PayloadTooLarge',
      'request body exceeds 8388608 bytes',
    ],
    [
      '§5.1 Internal keeps its fixed text',
      new InternalError('disk on fire'),
      500,
      'Internal',
      'internal store failure',
    ],
    [
      'DESIGN.md §3 stored bytes that do not hash to their ref name what was corrupt',
      new StoredObjectCorruptError(`object ${HEAD} has bytes that hash to ${HEAD}`),
      500,
      'StoredObjectCorrupt',
      `stored object corrupt: object ${HEAD} has bytes that hash to ${HEAD}`,
    ],
    [
      '§5.1 Timeout hides the service text',
      new DeadlineExceededError('ledger.head did not answer'),
      503,
      'Timeout',
      'the deadline ended before World answered; retry the request',
    ],
    [
      '§5.1 a transport timeout reads as Timeout',
      new TransportTimeoutError('ledger.head did not answer within 10000 ms'),
      503,
      'Timeout',
      'the deadline ended before World answered; retry the request',
    ],
    [
      '§5.1 CommitUncertain',
      new CommitUncertainError('reconcile first'),
      503,
      'CommitUncertain',
      'reconcile first',
    ],
    [
      '§5.1 an uncertain outcome is CommitUncertain',
      new UncertainError(),
      503,
      'CommitUncertain',
      'invocation outcome is not confirmed; resend the same task id',
    ],
    [
      '§5.1 ProjectionUnavailable',
      new ProjectionUnavailableError(),
      503,
      'ProjectionUnavailable',
      'the projection read failed; retry the request',
    ],
    [
      '§5.1 ProjectionDeadlineExceeded',
      new ProjectionDeadlineExceededError(),
      504,
      'ProjectionDeadlineExceeded',
      'the projection read exceeded its bounded deadline',
    ],
    [
      'a service that does not answer',
      new ServiceUnavailableError('no service answers ledger.head'),
      503,
      'Unavailable',
      'a World service is unavailable; retry the request',
    ],
    [
      'a gateway that began shutting down',
      new ShuttingDownError(),
      503,
      'ShuttingDown',
      'the gateway is shutting down and takes no new requests; send it to another replica',
    ],
    [
      '§5.10 reusing a rest: id for another commit',
      new DuplicateInvocationError('rest:a'),
      400,
      'BadRequest',
      'invocation id "rest:a" was already used for different content',
    ],
    [
      'a class the table does not name is Internal',
      new LeaseLostError('ep1', 3),
      500,
      'Internal',
      'internal store failure',
    ],
  ];
  it.each(rows)('%s', (_row, error, status, restClass, message) => {
    expect(restErrorOf(error)).toEqual({ status, body: { error: { class: restClass, message } } });
  });

  it('puts observedHead and selectedHead inside the HeadConflict error object (§5.1, §11 scenario 4)', () => {
    expect(restErrorOf(new HeadConflictError('', HEAD))).toEqual({
      status: 409,
      body: {
        error: {
          class: 'HeadConflict',
          message: 'observedHead is not the selected head',
          observedHead: '',
          selectedHead: HEAD,
        },
      },
    });
  });
});

describe('the MCP column of the error table (world-spec §6.3)', () => {
  const records = [`sha256:${'e'.repeat(64)}`];
  const rows: Array<[string, WorldError, number, string, boolean]> = [
    [
      '§6.3 unknown tool',
      new UnknownToolError('ailang-write'),
      -32602,
      'unknown tool "ailang-write"',
      false,
    ],
    [
      '§6.3 invalid params',
      new BadRequestError('arguments must be a JSON object'),
      -32602,
      'invalid params: arguments must be a JSON object',
      false,
    ],
    [
      '§6.4 body limit',
      new PayloadTooLargeError('request body exceeds 4194304 bytes'),
      -32600,
      'request body exceeds 4194304 bytes',
      false,
    ],
    [
      '§4.5 EffectsUnrecorded',
      new EffectsUnrecordedError('mcp:ep1:t', records, 'head moved'),
      -32603,
      'host callback failed',
      true,
    ],
    ['§6.3 R8', new NoHandlerError(), -32603, 'host callback failed', true],
    ['§6.3 lease lost', new LeaseLostError('ep1', 2), -32603, 'host callback failed', true],
    [
      '§6.3 unavailable',
      new ServiceUnavailableError('no service answers planner.invoke'),
      -32603,
      'host callback failed',
      true,
    ],
    ['§6.3 internal', new InternalError(), -32603, 'host callback failed', true],
    [
      '§6.3 a replay whose stored output was altered',
      new StoredObjectCorruptError(`object ${HEAD} has bytes that hash to ${HEAD}`),
      -32603,
      'host callback failed',
      true,
    ],
    [
      'README "Exactly-once over MCP": a world/taskId in flight',
      new InvocationInFlightError(),
      -32602,
      'task id already used in this session',
      false,
    ],
    [
      'README "Exactly-once over MCP": a world/taskId reused for other arguments',
      new DuplicateInvocationError('mcp:ep1:t'),
      -32602,
      'task id already used in this session',
      false,
    ],
    [
      '§6.3 deadline',
      new DeadlineExceededError('invocation exceeded its deadline'),
      -32603,
      'host callback timed out',
      true,
    ],
    [
      '§6.3 deadline seen by the transport',
      new TransportTimeoutError('planner.invoke did not answer within 21000 ms'),
      -32603,
      'host callback timed out',
      true,
    ],
  ];
  it.each(rows)('%s', (_row, error, code, message, host) => {
    expect(mcpErrorOf(error)).toEqual({ code, message, host });
  });

  const keyedRows: Array<[string, WorldError, string]> = [
    [
      '§4.5 EffectsUnrecorded names its records',
      new EffectsUnrecordedError('mcp:ep1:t', records, 'head moved'),
      `effects were requested but the invocation was not confirmed committed; effect records: ${records.join(' ')}`,
    ],
    [
      '§5.5 an unknown outcome asks for the same task id',
      new UncertainError(),
      'invocation outcome is not confirmed; resend the same task id',
    ],
    [
      '§5.5 the wait for its planner ended at the deadline: the outcome is unknown',
      new TransportTimeoutError('planner.invoke did not answer within 21000 ms'),
      'invocation outcome is not confirmed; resend the same task id',
    ],
    [
      '§6.3 the service said its deadline ended before anything durable',
      new DeadlineExceededError('invocation exceeded its deadline'),
      'host callback timed out',
    ],
    ['§6.3 any other host failure stays plain', new NoHandlerError(), 'host callback failed'],
  ];
  it.each(keyedRows)('a keyed call (world/taskId): %s', (_row, error, message) => {
    expect(mcpErrorOf(error, true)).toEqual({ code: -32603, message, host: true });
  });
});

describe('asWorldError', () => {
  it('turns a refused ref into BadRequest naming the field', () => {
    const error = asWorldError(new InvalidRefError('after', 'digest must be hex'));
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.message).toBe('after: digest must be hex');
  });

  it('turns an untyped error into Internal without its message', () => {
    const error = asWorldError(new Error('/secret/path exploded'));
    expect(error).toBeInstanceOf(InternalError);
    expect(error.message).toBe('internal store failure');
  });
});
