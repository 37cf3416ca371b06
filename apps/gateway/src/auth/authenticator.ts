import {
  ForbiddenError,
  InvalidSessionError,
  READ_ALL,
  REST_COMMIT_GRANT,
  SessionAbsentError,
  SessionUnknownError,
  grantDenial,
  parseBearer,
  type CommitAuthor,
  type ReadScope,
  type Session,
} from '@world/contracts';
import type { OperatorCredential } from './operator-credential.js';
import type { SessionResolver } from './session-resolver.js';

/** Who is calling: a session holder, or the operator (the `world` CLI). */
export type Principal = { kind: 'session'; session: Session } | { kind: 'operator' };

/**
 * The scope a reader's reads run in (DESIGN.md §3): the operator reads everything, a session its
 * own episode (contracts `confinementOf` says what that confines).
 */
export function readScopeOf(principal: Principal): ReadScope {
  return principal.kind === 'operator'
    ? READ_ALL
    : { kind: 'episode', episodeId: principal.session.episodeId };
}

/**
 * The 403 text of a session without the commit grant (DESIGN.md §3).
 * @internal exported for rest.int-spec.ts
 */
export const COMMIT_FORBIDDEN_MESSAGE = `this session holds no live ${REST_COMMIT_GRANT.effect}=${REST_COMMIT_GRANT.scope}:N grant (N ≥ 1): POST /v1/commit needs one, or the operator credential`;

/**
 * True when a session may make REST commits: it holds a live `World.Commit=log:N` grant with
 * N ≥ 1 — the grant law (contracts `grantDenial`) asked for cost 1 (DESIGN.md §3; REST commits
 * do not spend the budget).
 * @param now epoch ms
 */
function holdsCommitGrant(session: Session, now: number): boolean {
  const ask = { effect: REST_COMMIT_GRANT.effect, scope: REST_COMMIT_GRANT.scope, cost: 1, now };
  return session.grants.some((g) => grantDenial({ ...g, remaining: g.budget }, ask) === null);
}

/**
 * Client texts of the operator routes' refusals.
 * @internal exported for test/integration/operator.int-spec.ts
 */
export const OPERATOR_MESSAGES = {
  absent: 'an operator credential is required: send Authorization: Bearer <operator-token>',
  unknown: 'unknown operator credential',
} as const;

/**
 * Reads `Authorization: Bearer <64-hex>` — no other header is a credential (world-spec §2.2) —
 * and decides who is calling. Every outcome is a typed error so each surface renders it its own
 * way (MCP: 401 text/plain; REST: the §5.1 envelope).
 */
export class Authenticator {
  constructor(
    private readonly sessions: SessionResolver,
    private readonly operator: OperatorCredential,
  ) {}

  /**
   * A live session (MCP, POST /v1/commit).
   * @param absentMessage the surface's absent text (the commit route has its own, world-spec §5.10)
   * @throws SessionAbsentError, InvalidSessionError, SessionUnknownError, SessionExpiredError,
   * or the broker's unavailability
   */
  async session(header: string | undefined, absentMessage?: string): Promise<Session> {
    const token = this.token(header, absentMessage);
    return this.sessions.resolve(token);
  }

  /**
   * A live session or the operator credential (GET /v1/*, DESIGN.md §7.5).
   * @throws as `session`
   */
  async reader(header: string | undefined, absentMessage?: string): Promise<Principal> {
    const token = this.token(header, absentMessage);
    if (this.operator.matches(token)) return { kind: 'operator' };
    return { kind: 'session', session: await this.sessions.resolve(token) };
  }

  /**
   * Who makes a REST commit (POST /v1/commit; DESIGN.md §3): the operator credential, or a live
   * session holding the commit grant (holdsCommitGrant), as the author the ledger holds the
   * commit to.
   * @param absentMessage the commit route's absent text (world-spec §5.10)
   * @param now epoch ms
   * @throws as `session`; ForbiddenError COMMIT_FORBIDDEN_MESSAGE for a session without the grant
   */
  async committer(
    header: string | undefined,
    absentMessage: string,
    now: number,
  ): Promise<CommitAuthor> {
    const principal = await this.reader(header, absentMessage);
    if (principal.kind === 'operator') return { kind: 'operator' };
    if (!holdsCommitGrant(principal.session, now))
      throw new ForbiddenError(COMMIT_FORBIDDEN_MESSAGE);
    return { kind: 'episode', episodeId: principal.session.episodeId };
  }

  /**
   * The operator credential only (operator routes); a session token is not enough.
   * @throws SessionAbsentError, InvalidSessionError, SessionUnknownError with operator texts
   */
  assertOperator(header: string | undefined): void {
    const token = this.token(header, OPERATOR_MESSAGES.absent);
    if (!this.operator.matches(token)) throw new SessionUnknownError(OPERATOR_MESSAGES.unknown);
  }

  private token(header: string | undefined, absentMessage?: string): string {
    const parsed = parseBearer(header);
    if (parsed.kind === 'absent') throw new SessionAbsentError(absentMessage);
    if (parsed.kind === 'malformed') throw new InvalidSessionError();
    return parsed.token;
  }
}
