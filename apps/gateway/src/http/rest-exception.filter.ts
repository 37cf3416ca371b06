import { ArgumentsHost, Catch, HttpException, type ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { InternalError, typedErrorOf } from '@world/contracts';
import { restErrorOf } from '../errors/error-map.js';
import type { LogSink } from '../log.js';

/** Path → allowed methods of every REST route, for 405 answers (world-spec §5: Go method patterns). */
const ROUTES: ReadonlyArray<[RegExp, string]> = [
  [/^\/v1\/commit\/?$/, 'POST'],
  [/^\/v1\/(health|head|log)\/?$/, 'GET'],
  [/^\/v1\/(worlds|objects|effects|log|registry|receipts)\/.+$/, 'GET'],
  [/^\/v1\/operator\/episodes\/?$/, 'POST'],
  [/^\/v1\/operator\/sessions\/?$/, 'GET, POST'],
  [/^\/v1\/operator\/sessions\/[^/]+\/?$/, 'DELETE'],
];

/**
 * Renders every failure of a REST route as the envelope `{"error":{"class","message"…}}` with the
 * status of the one error table (world-spec §5.1). Untyped failures are 500
 * `internal store failure`, their cause logged, never sent. An unknown path is 404, a known path
 * with the wrong method 405.
 */
@Catch()
export class RestExceptionFilter implements ExceptionFilter {
  constructor(private readonly log: LogSink) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    if (res.headersSent) {
      this.log.error({ err: exception, path: req.path }, 'failure after the answer started');
      res.end();
      return;
    }
    if (exception instanceof HttpException) return this.routing(exception, req, res);
    const typed = typedErrorOf(exception);
    const { status, body } = restErrorOf(typed ?? new InternalError());
    if (typed === undefined || status >= 500)
      this.log.error({ err: exception, path: req.path, status }, 'request failed');
    if (status === 413) res.setHeader('Connection', 'close');
    res.status(status).json(body);
  }

  private routing(exception: HttpException, req: Request, res: Response): void {
    const status = exception.getStatus();
    const route = ROUTES.find(([pattern]) => pattern.test(req.path));
    if (status === 404 && route !== undefined) {
      res.setHeader('Allow', route[1]);
      res.status(405).json({
        error: {
          class: 'MethodNotAllowed',
          message: `method ${req.method} not allowed; use ${route[1]}`,
        },
      });
      return;
    }
    if (status === 404) {
      res
        .status(404)
        .json({ error: { class: 'NotFound', message: `no route ${req.method} ${req.path}` } });
      return;
    }
    res.status(status).json({
      error: { class: status >= 500 ? 'Internal' : 'BadRequest', message: exception.message },
    });
  }
}
