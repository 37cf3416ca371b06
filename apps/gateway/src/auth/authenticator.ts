import {
  InvalidSessionError,
  SessionAbsentError,
  SessionUnknownError,
  parseBearer,
  type Session,
} from '@world/contracts';
import type { OperatorCredential } from './operator-credential.js';
import type { SessionResolver } from './session-resolver.js';

/** Who is calling: a session holder, or the operator (the `world` CLI). */
export type Principal = { kind: 'session'; session: Session } | { kind: 'operator' };

/** Client texts of the operator routes' refusals. */
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
  async reader(header: string | undefined): Promise<Principal> {
    const token = this.token(header);
    if (this.operator.matches(token)) return { kind: 'operator' };
    return { kind: 'session', session: await this.sessions.resolve(token) };
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
