import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { parseRequest } from '@world/contracts';
import { ListSessions } from './list-sessions.js';
import { MintSession } from './mint-session.js';
import { ResolveSession } from './resolve-session.js';
import { RevokeSession } from './revoke-session.js';

/** The `broker.session.*` subjects. */
@Controller()
export class SessionsController {
  constructor(
    private readonly mintSession: MintSession,
    private readonly resolveSession: ResolveSession,
    private readonly revokeSession: RevokeSession,
    private readonly listSessions: ListSessions,
  ) {}

  @MessagePattern('broker.session.mint')
  mint(@Payload() data: unknown) {
    return this.mintSession.execute(parseRequest('broker.session.mint', data), Date.now());
  }

  @MessagePattern('broker.session.resolve')
  resolve(@Payload() data: unknown) {
    return this.resolveSession.execute(
      parseRequest('broker.session.resolve', data).credentialId,
      Date.now(),
    );
  }

  @MessagePattern('broker.session.revoke')
  revoke(@Payload() data: unknown) {
    return this.revokeSession.execute(
      parseRequest('broker.session.revoke', data).credentialId,
      Date.now(),
    );
  }

  @MessagePattern('broker.session.list')
  list(@Payload() data: unknown) {
    return this.listSessions.execute(
      parseRequest('broker.session.list', data).episodeId,
      Date.now(),
    );
  }
}
