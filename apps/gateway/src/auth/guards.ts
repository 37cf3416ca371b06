import {
  Inject,
  Injectable,
  createParamDecorator,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import type { Request } from 'express';
import { READ_ALL, type ReadScope } from '@world/contracts';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../gateway.tokens.js';
import { Authenticator, readScopeOf } from './authenticator.js';

function authorization(context: ExecutionContext): string | undefined {
  return context.switchToHttp().getRequest<Request>().headers.authorization;
}

/** The read scope ReadAccessGuard decided for each request it let through. */
const SCOPES = new WeakMap<Request, ReadScope>();

/**
 * GET /v1/*: a live session or the operator credential, unless the operator enabled public
 * reads (DESIGN.md §7.5). Refusals use the REST classes (world-spec §5.1, §6.1). The request's
 * read scope (readScopeOf; everything under public reads) is what `@ReaderScope()` hands the route.
 */
@Injectable()
export class ReadAccessGuard implements CanActivate {
  constructor(
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
    private readonly auth: Authenticator,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    const scope = this.settings.publicReads
      ? READ_ALL
      : readScopeOf(await this.auth.reader(authorization(context)));
    SCOPES.set(req, scope);
    return true;
  }
}

/**
 * The read scope of a route behind ReadAccessGuard. A route reached without the guard has no
 * scope and fails closed.
 * @throws Error when the guard did not run
 */
export const ReaderScope = createParamDecorator((_data: unknown, context: ExecutionContext) => {
  const scope = SCOPES.get(context.switchToHttp().getRequest<Request>());
  if (scope === undefined) throw new Error('read scope missing: the route lacks ReadAccessGuard');
  return scope;
});

/** Operator routes: the operator credential only. */
@Injectable()
export class OperatorGuard implements CanActivate {
  constructor(private readonly auth: Authenticator) {}

  canActivate(context: ExecutionContext): boolean {
    this.auth.assertOperator(authorization(context));
    return true;
  }
}
