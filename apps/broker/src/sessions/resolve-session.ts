import { Injectable } from '@nestjs/common';
import { sessionStatus, type ReplyOf, type Session } from '@world/contracts';
import { SessionsRepository, type SessionRow } from './sessions.repository.js';

/** What `broker.session.resolve` answers for a credential id. */
export type CredentialResolution = ReplyOf<'broker.session.resolve'>;

/**
 * Classifies a stored session at `now` (epoch ms): none → unknown; else its contracts
 * `sessionStatus` (revoked, expired), and a live one → ok with its grants (world-spec §2.2). Pure.
 * @internal exported for test/integration/sessions.int-spec.ts
 */
export function classifySession(row: SessionRow | null, now: number): CredentialResolution {
  if (row === null) return { status: 'unknown' };
  const status = sessionStatus(row, now);
  return status === 'live' ? { status: 'ok', session: toSession(row) } : { status };
}

/** The wire form of a stored session. */
export function toSession(row: SessionRow): Session {
  return {
    credentialId: row.credentialId,
    episodeId: row.episodeId,
    grants: row.grants,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
  };
}

/** `broker.session.resolve`: a credential id to ok | unknown | revoked | expired. */
@Injectable()
export class ResolveSession {
  constructor(private readonly sessions: SessionsRepository) {}

  /** @param now epoch ms of the decision */
  async execute(credentialId: string, now: number): Promise<CredentialResolution> {
    return classifySession(await this.sessions.find(credentialId), now);
  }
}
