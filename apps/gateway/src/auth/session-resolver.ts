import {
  CREDENTIAL_LOOKUP_MS,
  SESSION_CACHE_MAX_MS,
  SessionExpiredError,
  SessionUnknownError,
  credentialIdOf,
  sessionStatus,
  type Session,
} from '@world/contracts';
import type { RpcClient } from '@world/runtime';

interface CacheEntry {
  session: Session;
  /** when the resolution that produced it was asked for (epoch ms) */
  askedAt: number;
}

/**
 * Resolves bearer tokens to sessions through `broker.session.resolve`, with the one cache
 * DESIGN.md §2 allows: a resolution lives at most SESSION_CACHE_MAX_MS (1 s), keyed by
 * credential id, and is dropped on `broker.session.revoked`. A cached session past its
 * `expiresAt` is refused locally. Revoked credentials answer as unknown (world-spec §2.2).
 */
export class SessionResolver {
  private readonly cache = new Map<string, CacheEntry>();
  /** credential id → when its revocation event arrived: an answer asked for before it is not cached */
  private readonly revokedAt = new Map<string, number>();
  private lastSweep = 0;
  private readonly unsubscribe: () => void;

  /**
   * @param rpc the gateway's client; the resolver subscribes to `broker.session.revoked` on it
   * @param clock epoch milliseconds (tests may pin it)
   */
  constructor(
    private readonly rpc: RpcClient,
    private readonly clock: () => number = Date.now,
  ) {
    this.unsubscribe = rpc.subscribe('broker.session.revoked', ({ credentialId }) =>
      this.forget(credentialId),
    );
  }

  /**
   * The live session of a token.
   * @param token 64 lowercase hex (already parsed by parseBearer)
   * @throws SessionUnknownError (never minted, revoked), SessionExpiredError; the broker's
   * ServiceUnavailableError / TransportTimeoutError when it does not answer within
   * CREDENTIAL_LOOKUP_MS (world-spec §10: credential lookup 3 s)
   */
  async resolve(token: string): Promise<Session> {
    const credentialId = credentialIdOf(token);
    const askedAt = this.clock();
    const hit = this.cache.get(credentialId);
    if (hit !== undefined && askedAt - hit.askedAt < SESSION_CACHE_MAX_MS)
      return this.live(hit.session, askedAt);
    const reply = await this.rpc.request(
      'broker.session.resolve',
      { credentialId },
      { timeoutMs: CREDENTIAL_LOOKUP_MS },
    );
    switch (reply.status) {
      case 'ok': {
        const revoked = this.revokedAt.get(credentialId);
        if (revoked === undefined || revoked < askedAt) {
          this.sweep(askedAt);
          this.cache.set(credentialId, { session: reply.session, askedAt });
        }
        return this.live(reply.session, this.clock());
      }
      case 'expired':
        throw new SessionExpiredError();
      case 'unknown':
      case 'revoked':
        throw new SessionUnknownError();
    }
  }

  /** Drops a credential's cached resolution (its revocation event, or a revoke on this replica). */
  forget(credentialId: string): void {
    this.cache.delete(credentialId);
    this.revokedAt.set(credentialId, this.clock());
  }

  /** Stops listening for revocations. */
  close(): void {
    this.unsubscribe();
  }

  private live(session: Session, now: number): Session {
    if (sessionStatus(session, now) === 'expired') {
      this.cache.delete(session.credentialId);
      throw new SessionExpiredError();
    }
    return session;
  }

  /**
   * Forgets stale entries at most once per cache lifetime, so neither map grows with the number
   * of credentials ever seen. A revocation mark outlives any lookup that could race it.
   */
  private sweep(now: number): void {
    if (now - this.lastSweep < SESSION_CACHE_MAX_MS) return;
    this.lastSweep = now;
    for (const [id, entry] of this.cache)
      if (now - entry.askedAt >= SESSION_CACHE_MAX_MS) this.cache.delete(id);
    for (const [id, at] of this.revokedAt)
      if (now - at >= CREDENTIAL_LOOKUP_MS + SESSION_CACHE_MAX_MS) this.revokedAt.delete(id);
  }
}
