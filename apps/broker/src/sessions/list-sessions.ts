import { Injectable } from '@nestjs/common';
import { PAGE_MAX, sessionStatus, type ReplyOf } from '@world/contracts';
import { toSession } from './resolve-session.js';
import { SessionsRepository } from './sessions.repository.js';

/** `broker.session.list` (world-spec §7.4): newest first, at most PAGE_MAX rows, with liveness at `now`. */
@Injectable()
export class ListSessions {
  constructor(private readonly sessions: SessionsRepository) {}

  async execute(
    episodeId: string | undefined,
    now: number,
  ): Promise<ReplyOf<'broker.session.list'>> {
    const rows = await this.sessions.list(episodeId, PAGE_MAX);
    return {
      items: rows.map((row) => ({
        ...toSession(row),
        revokedAt: row.revokedAt,
        live: sessionStatus(row, now) === 'live',
      })),
    };
  }
}
