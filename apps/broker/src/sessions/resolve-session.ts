import { Injectable } from '@nestjs/common';
import { parseBearer, credentialIdOf, type ReplyOf, type Session } from '@world/contracts';
import type { DatabaseHandle } from '@world/runtime';
import { SessionsRepository, type SessionRow } from './sessions.repository.js';

/** What `broker.session.resolve` answers for a credential id. */
export type CredentialResolution = ReplyOf<'broker.session.resolve'>;

/** Every way an Authorization header can resolve (world-spec §2.2, §6.1). */
export type SessionResolution =
  CredentialResolution | { status: 'absent' } | { status: 'malformed' };

/**
 * Classifies a stored session at `now` (epoch ms): none → unknown; revoked → revoked;
 * now ≥ expiresAt → expired; else ok with its grants (world-spec §2.2). Pure.
 */
export function classifySession(row: SessionRow | null, now: number): CredentialResolution {
  if (row === null) return { status: 'unknown' };
  if (row.revokedAt !== null) return { status: 'revoked' };
  if (now >= row.expiresAt) return { status: 'expired' };
  return { status: 'ok', session: toSession(row) };
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

/**
 * Resolves an Authorization header for direct (in-process) callers, telling apart absent and
 * malformed headers (decided before a credential id exists, world-spec §6.1) from unknown,
 * revoked, expired and live sessions.
 * @param source the broker's database (or its sessions repository)
 * @param header the raw Authorization header value, if any
 * @param now epoch ms
 */
export async function resolveSession(
  source: DatabaseHandle | SessionsRepository,
  header: string | undefined | null,
  now: number,
): Promise<SessionResolution> {
  const parsed = parseBearer(header);
  if (parsed.kind === 'absent') return { status: 'absent' };
  if (parsed.kind === 'malformed') return { status: 'malformed' };
  const repository = source instanceof SessionsRepository ? source : new SessionsRepository(source);
  return classifySession(await repository.find(credentialIdOf(parsed.token)), now);
}
