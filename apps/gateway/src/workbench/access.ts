/**
 * Who is looking at the workbench (README "The workbench"). `world workbench` trades its credential
 * (operator token or a session's) for a one-time login ticket (POST /workbench/tickets with
 * `Authorization: Bearer`); the browser opens `/workbench/login?ticket=…`, which consumes the
 * ticket, sets an HttpOnly, SameSite=Strict cookie holding the login and redirects to a URL
 * without the ticket. Every page resolves the credential again (a revoked or expired session
 * stops working at once).
 *
 * Tickets and logins are sealed, not stored: AES-256-GCM (NIST SP 800-38D) over
 * `{kind, token, expiresAt, nonce}` under a key every gateway replica derives from the operator
 * credential they share (OperatorCredential.workbenchKey: HMAC-SHA256(operator token,
 * `world/workbench-login/v1`), RFC 2104), so a ticket
 * minted by one replica is exchanged by another and a login works on every replica, across
 * restarts. The browser holds only ciphertext it can neither read nor alter (the tag fails).
 * Rotating the operator token ends every login. A ticket is one-time across replicas: its nonce
 * is recorded in the broker's database (`broker.workbench.ticket.consume`, kept until the ticket
 * expires) and only the exchange that recorded it first succeeds; each replica also remembers the
 * nonces it consumed, so a replay on the same replica is refused without a round trip.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * How long a ticket may wait to be exchanged.
 * @internal exported for access.spec.ts
 */
export const TICKET_TTL_MS = 60_000;
/**
 * How long a login lasts.
 * @internal exported for access.spec.ts
 */
export const LOGIN_TTL_MS = 8 * 3600_000;
/** The cookie of a login. */
const LOGIN_COOKIE = 'world_workbench';
/** At most this many consumed ticket nonces are remembered (each for at most TICKET_TTL_MS). */
const MAX_CONSUMED = 10_000;
const IV_BYTES = 12;
const TAG_BYTES = 16;

interface Sealed {
  kind: 'ticket' | 'login';
  token: string;
  expiresAt: number;
  nonce: string;
}

/** Tickets and logins sealed under one key (shared by every gateway of a World). */
export class WorkbenchLogins {
  private readonly consumed = new Map<string, number>();

  /**
   * @param key the 32-byte sealing key (OperatorCredential.workbenchKey)
   * @param consumeOnce the store every replica shares: records a ticket's nonce until expiresAt
   * (epoch ms), true for the one call that recorded it first
   * @param clock epoch ms
   */
  constructor(
    private readonly key: Buffer,
    private readonly consumeOnce: (nonce: string, expiresAt: number) => Promise<boolean>,
    private readonly clock: () => number = Date.now,
  ) {
    if (key.length !== 32) throw new Error('WorkbenchLogins: the key must be 32 bytes');
  }

  /** A ticket for `token` (already checked by the caller), valid within TICKET_TTL_MS. */
  ticket(token: string): string {
    return this.seal({
      kind: 'ticket',
      token,
      expiresAt: this.clock() + TICKET_TTL_MS,
      nonce: nonce(),
    });
  }

  /**
   * Consumes a ticket: the login it becomes, or null (forged, altered, used on any replica, or
   * expired).
   * @throws the shared store's errors (the broker not answering): the ticket stays unused
   */
  async exchange(ticket: string): Promise<string | null> {
    const held = this.open(ticket, 'ticket');
    if (held === null || this.consumed.has(held.nonce)) return null;
    if (!(await this.consumeOnce(held.nonce, held.expiresAt))) return null;
    this.consume(held);
    return this.seal({
      kind: 'login',
      token: held.token,
      expiresAt: this.clock() + LOGIN_TTL_MS,
      nonce: nonce(),
    });
  }

  /** The credential of a live login, or null. */
  token(login: string | undefined): string | null {
    return login === undefined ? null : (this.open(login, 'login')?.token ?? null);
  }

  private consume(held: Sealed): void {
    const now = this.clock();
    for (const [n, expiresAt] of this.consumed) if (expiresAt <= now) this.consumed.delete(n);
    this.consumed.set(held.nonce, held.expiresAt);
    while (this.consumed.size > MAX_CONSUMED)
      this.consumed.delete(this.consumed.keys().next().value!);
  }

  /** base64url(iv ‖ ciphertext ‖ tag). */
  private seal(value: Sealed): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
  }

  /** The sealed value of `kind`, or null when it does not open, is another kind or expired. */
  private open(text: string, kind: Sealed['kind']): Sealed | null {
    if (!/^[A-Za-z0-9_-]{1,4096}$/.test(text)) return null;
    const raw = Buffer.from(text, 'base64url');
    if (raw.length <= IV_BYTES + TAG_BYTES) return null;
    let value: Sealed;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
      decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
      const plain = Buffer.concat([
        decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)),
        decipher.final(),
      ]);
      value = JSON.parse(plain.toString('utf8')) as Sealed;
    } catch {
      return null;
    }
    if (value.kind !== kind || typeof value.token !== 'string') return null;
    return value.expiresAt > this.clock() ? value : null;
  }
}

function nonce(): string {
  return randomBytes(16).toString('hex');
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
