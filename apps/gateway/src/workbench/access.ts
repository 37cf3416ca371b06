/**
 * Who is looking at the workbench (issue 15 "Access"). `world workbench` trades its credential
 * (operator token or a session's) for a one-time login ticket (POST /workbench/tickets with
 * `Authorization: Bearer`); the browser opens `/workbench/login?ticket=…`, which consumes the
 * ticket, sets an HttpOnly, SameSite=Strict cookie naming a login and redirects to a URL without
 * the ticket. The credential itself never reaches the browser; the login keeps it on the gateway
 * and every page resolves it again (a revoked or expired session stops working at once).
 * Tickets and logins live in this gateway's memory: a restart logs everyone out.
 */
import { randomBytes } from 'node:crypto';

/** How long a ticket may wait to be exchanged (one exchange, then it is gone). */
export const TICKET_TTL_MS = 60_000;
/** How long a login lasts. */
export const LOGIN_TTL_MS = 8 * 3600_000;
/** At most this many tickets and logins are held; the oldest go first. */
const MAX_HELD = 1000;
/** The cookie of a login. */
export const LOGIN_COOKIE = 'world_workbench';

interface Held {
  token: string;
  expiresAt: number;
}

/** 32 random bytes as hex: the name of a ticket or a login. */
function secret(): string {
  return randomBytes(32).toString('hex');
}

/** Tickets and logins of one gateway. */
export class WorkbenchLogins {
  private readonly tickets = new Map<string, Held>();
  private readonly logins = new Map<string, Held>();

  constructor(private readonly clock: () => number = Date.now) {}

  /** A ticket for `token` (already checked by the caller), valid once within TICKET_TTL_MS. */
  ticket(token: string): string {
    const name = secret();
    this.hold(this.tickets, name, { token, expiresAt: this.clock() + TICKET_TTL_MS });
    return name;
  }

  /** Consumes a ticket: the new login's name, or null (unknown, used or expired). */
  exchange(ticket: string): string | null {
    const held = this.tickets.get(ticket);
    this.tickets.delete(ticket);
    if (held === undefined || held.expiresAt <= this.clock()) return null;
    const name = secret();
    this.hold(this.logins, name, { token: held.token, expiresAt: this.clock() + LOGIN_TTL_MS });
    return name;
  }

  /** The credential of a live login, or null. */
  token(login: string | undefined): string | null {
    if (login === undefined) return null;
    const held = this.logins.get(login);
    if (held === undefined) return null;
    if (held.expiresAt <= this.clock()) {
      this.logins.delete(login);
      return null;
    }
    return held.token;
  }

  private hold(map: Map<string, Held>, name: string, held: Held): void {
    map.set(name, held);
    while (map.size > MAX_HELD) map.delete(map.keys().next().value!);
  }
}

/** The login cookie of a request's Cookie header (RFC 6265 §5.4), if any. */
export function loginOf(cookieHeader: string | undefined): string | undefined {
  for (const part of (cookieHeader ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === LOGIN_COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The Set-Cookie value of a login (HttpOnly, SameSite=Strict; Path=/ so that /agui sees it too). */
export function loginCookie(login: string): string {
  return `${LOGIN_COOKIE}=${login}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${LOGIN_TTL_MS / 1000}`;
}
