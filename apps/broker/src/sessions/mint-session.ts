import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  credentialIdOf,
  NotFoundError,
  SESSION_TOKEN_BYTES,
  type ParsedRequestOf,
  type ReplyOf,
} from '@world/contracts';
import { EpisodesRepository } from '../episodes/episodes.repository.js';
import { SessionsRepository } from './sessions.repository.js';

const MS_PER_SECOND = 1000;

/**
 * `broker.session.mint` (world-spec §2.2, §7.4): a 64-hex token from 32 random bytes; only its
 * sha256 (the credential id) is stored; every grant expires with the session, mint + ttl
 * (incident 19). The token is returned once and never logged. A session binds an existing
 * episode: minting for an episode without a worktree is refused, so a typo never yields a
 * session whose every call is refused later.
 */
@Injectable()
export class MintSession {
  constructor(
    private readonly sessions: SessionsRepository,
    private readonly episodes: EpisodesRepository,
  ) {}

  /**
   * @param now epoch ms of the mint
   * @throws NotFoundError when the episode has no worktree (never created)
   */
  async execute(
    request: ParsedRequestOf<'broker.session.mint'>,
    now: number,
  ): Promise<ReplyOf<'broker.session.mint'>> {
    const episode = await this.episodes.get(request.episodeId);
    if (episode?.worktree == null) {
      throw new NotFoundError(
        `episode "${request.episodeId}" does not exist; create it first (world episode create ${request.episodeId})`,
      );
    }
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
