import { ArgumentsHost, Catch, type RpcExceptionFilter } from '@nestjs/common';
import { throwError, type Observable } from 'rxjs';
import { InternalError, typedErrorOf, type WireError } from '@world/contracts';
import { logger } from './logger.js';

/**
 * Turns whatever a message handler throws into a WireError reply: WorldErrors keep their class,
 * canonical-encoding errors become BadRequest, anything else is logged with its cause and
 * answered as Internal (the cause never crosses the wire).
 */
@Catch()
export class WorldRpcExceptionFilter implements RpcExceptionFilter<unknown> {
  catch(exception: unknown, _host: ArgumentsHost): Observable<WireError> {
    return throwError(() => toWireError(exception));
  }
}

/** The wire form of any thrown value (see WorldRpcExceptionFilter). */
function toWireError(exception: unknown): WireError {
  const typed = typedErrorOf(exception);
  if (typed !== undefined) return typed.toWire();
  logger.error({ err: exception }, 'unexpected error in a message handler');
  return new InternalError().toWire();
}
