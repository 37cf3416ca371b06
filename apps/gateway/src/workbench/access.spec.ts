import { OperatorCredential } from '../auth/operator-credential.js';
import { LOGIN_TTL_MS, TICKET_TTL_MS, WorkbenchLogins, loginCookie, loginOf } from './access.js';

const OPERATOR = 'a'.repeat(64);
const SESSION = 'b'.repeat(64);

/** Two gateway replicas configured with the same operator token, on one clock. */
function replicas() {
  let now = 1_000_000;
  const clock = () => now;
  const key = () => new OperatorCredential(OPERATOR).workbenchKey;
  return {
    a: new WorkbenchLogins(key(), clock),
    b: new WorkbenchLogins(key(), clock),
    advance: (ms: number) => void (now += ms),
  };
}

describe('workbench logins across gateway replicas (README "The workbench")', () => {
  it('a ticket minted by one replica is exchanged by another, and the login works on both', () => {
    const { a, b } = replicas();
    const ticket = a.ticket(SESSION);
    const login = b.exchange(ticket);
    expect(login).not.toBeNull();
    expect(a.token(login!)).toBe(SESSION);
    expect(b.token(login!)).toBe(SESSION);
    // the sealed values never carry the credential in the clear
    expect(ticket.includes(SESSION)).toBe(false);
    expect(Buffer.from(login!, 'base64url').toString('latin1').includes(SESSION)).toBe(false);
  });

  it('a ticket is exchanged once per replica', () => {
    const { a, b } = replicas();
    const ticket = a.ticket(SESSION);
    expect(b.exchange(ticket)).not.toBeNull();
    expect(b.exchange(ticket)).toBeNull();
  });

  it('expired tickets and logins, altered or foreign seals, and a login used as a ticket are refused', () => {
    const { a, b, advance } = replicas();
    const late = a.ticket(SESSION);
    const login = a.exchange(a.ticket(SESSION))!;
    expect(b.exchange(login)).toBeNull();
    expect(b.token(a.ticket(SESSION))).toBeNull();
    const raw = Buffer.from(login, 'base64url');
    raw[20] ^= 1;
    expect(b.token(raw.toString('base64url'))).toBeNull();
    const foreign = new WorkbenchLogins(new OperatorCredential('c'.repeat(64)).workbenchKey);
    expect(foreign.token(login)).toBeNull();
    expect(foreign.exchange(a.ticket(SESSION))).toBeNull();
    expect(b.token('not a login')).toBeNull();
    expect(b.token(undefined)).toBeNull();
    advance(TICKET_TTL_MS);
    expect(b.exchange(late)).toBeNull();
    expect(b.token(login)).toBe(SESSION);
    advance(LOGIN_TTL_MS);
    expect(b.token(login)).toBeNull();
  });

  it('the cookie is HttpOnly, SameSite=Strict, and read back from a Cookie header', () => {
    expect(loginCookie('xyz')).toBe(
      'world_workbench=xyz; Path=/; HttpOnly; SameSite=Strict; Max-Age=28800',
    );
    expect(loginOf('a=1; world_workbench=xyz; b=2')).toBe('xyz');
    expect(loginOf(undefined)).toBeUndefined();
  });
});
