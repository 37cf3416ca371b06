import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { MESSAGES } from '@world/contracts';
import { GATEWAY, type GatewayContext } from '../gateway.tokens.js';

function authorization(context: ExecutionContext): string | undefined {
  return context.switchToHttp().getRequest<Request>().headers.authorization;
}

/**
 * GET /v1/*: a live session or the operator credential, unless the operator enabled public
 * reads (DESIGN.md §7.5). Refusals use the REST classes (world-spec §5.1, §6.1).
 */
@Injectable()
export class ReadAccessGuard implements CanActivate {
  constructor(@Inject(GATEWAY) private readonly gateway: GatewayContext) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.gateway.publicReads) return true;
    await this.gateway.auth.reader(authorization(context));
    return true;
  }
}

/**
 * POST /v1/commit: a live session, grants not consulted (world-spec §2.2, §5.10); the absent
 * text is the commit route's own.
 */
@Injectable()
export class CommitSessionGuard implements CanActivate {
  constructor(@Inject(GATEWAY) private readonly gateway: GatewayContext) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    await this.gateway.auth.session(authorization(context), MESSAGES.commitSessionAbsent);
    return true;
  }
}

/** Operator routes: the operator credential only. */
@Injectable()
export class OperatorGuard implements CanActivate {
  constructor(@Inject(GATEWAY) private readonly gateway: GatewayContext) {}

  canActivate(context: ExecutionContext): boolean {
    this.gateway.auth.assertOperator(authorization(context));
    return true;
  }
}
