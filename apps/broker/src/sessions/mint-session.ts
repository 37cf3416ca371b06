import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  credentialIdOf,
  SESSION_TOKEN_BYTES,
  type ParsedRequestOf,
  type ReplyOf,
} from '@world/contracts';
import { SessionsRepository } from './sessions.repository.js';

const MS_PER_SECOND = 1000;

/**
 * `broker.session.mint` (world-spec §2.2, §7.4): a 64-hex token from 32 random bytes; only its
 * sha256 (the credential id) is stored; every grant expires with the session, mint + ttl
 * (incident 19). The token is returned once and never logged.
 */
@Injectable()
export class MintSession {
  constructor(private readonly sessions: SessionsRepository) {}

  /** @param now epoch ms of the mint */
  async execute(
    request: ParsedRequestOf<'broker.session.mint'>,
    now: number,
  ): Promise<ReplyOf<'broker.session.mint'>> {
    const token = randomBytes(SESSION_TOKEN_BYTES).toString('hex');
    const credentialId = credentialIdOf(token);
    const expiresAt = now + request.ttlSeconds * MS_PER_SECOND;
    const grants = request.grants.map((g) => ({
      effect: g.effect,
      scope: g.scope,
      budget: g.budget,
      expiresAt,
    }));
    await this.sessions.insert({
      credentialId,
      episodeId: request.episodeId,
      createdAt: now,
      expiresAt,
      grants,
    });
    return { credentialId, episodeId: request.episodeId, grants, createdAt: now, expiresAt, token };
  }
}
