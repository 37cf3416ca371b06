import { OperatorCredential } from '../auth/operator-credential.js';
import { LOGIN_TTL_MS, TICKET_TTL_MS, WorkbenchLogins, loginCookie, loginOf } from './access.js';

const OPERATOR = 'a'.repeat(64);
const SESSION = 'b'.repeat(64);

/**
 * Two gateway replicas configured with the same operator token, on one clock, sharing one
 * consumed-ticket store with the broker's contract (the first record of a nonce wins).
 */
function replicas() {
  let now = 1_000_000;
  const clock = () => now;
  const key = () => new OperatorCredential(OPERATOR).workbenchKey;
  const recorded = new Set<string>();
  const store = async (nonce: string) => {
    if (recorded.has(nonce)) return false;
    recorded.add(nonce);
    return true;
  };
  return {
    a: new WorkbenchLogins(key(), store, clock),
    b: new WorkbenchLogins(key(), store, clock),
    recorded,
    advance: (ms: number) => void (now += ms),
  };
}

describe('workbench logins across gateway replicas (README "The workbench")', () => {
  it('a ticket minted by one replica is exchanged by another, and the login works on both', async () => {
    const { a, b } = replicas();
    const ticket = a.ticket(SESSION);
    const login = await b.exchange(ticket);
    expect(login).not.toBeNull();
    expect(a.token(login!)).toBe(SESSION);
    expect(b.token(login!)).toBe(SESSION);
    // the sealed values never carry the credential in the clear
    expect(ticket.includes(SESSION)).toBe(false);
    expect(Buffer.from(login!, 'base64url').toString('latin1').includes(SESSION)).toBe(false);
  });

  it('a ticket is exchanged once across replicas: the shared store decides', async () => {
    const { a, b, recorded } = replicas();
    const ticket = a.ticket(SESSION);
    expect(await b.exchange(ticket)).not.toBeNull();
    expect(recorded.size).toBe(1);
    expect(await b.exchange(ticket)).toBeNull();
    expect(await a.exchange(ticket)).toBeNull();
    const raced = a.ticket(SESSION);
    const answers = await Promise.all([a.exchange(raced), b.exchange(raced), a.exchange(raced)]);
    expect(answers.filter((l) => l !== null)).toHaveLength(1);
  });

  it('a ticket the store cannot record stays unused (the error propagates)', async () => {
    const key = new OperatorCredential(OPERATOR).workbenchKey;
    const down = new WorkbenchLogins(key, async () => {
      throw new Error('broker.workbench.ticket.consume timed out');
    });
    await expect(down.exchange(down.ticket(SESSION))).rejects.toThrow(
      'broker.workbench.ticket.consume timed out',
    );
  });

  it('expired tickets and logins, altered or foreign seals, and a login used as a ticket are refused', async () => {
    const { a, b, advance } = replicas();
    const late = a.ticket(SESSION);
    const login = (await a.exchange(a.ticket(SESSION)))!;
    expect(await b.exchange(login)).toBeNull();
    expect(b.token(a.ticket(SESSION))).toBeNull();
    const raw = Buffer.from(login, 'base64url');
    raw[20] ^= 1;
    expect(b.token(raw.toString('base64url'))).toBeNull();
    const foreign = new WorkbenchLogins(
      new OperatorCredential('c'.repeat(64)).workbenchKey,
      async () => true,
    );
    expect(foreign.token(login)).toBeNull();
    expect(await foreign.exchange(a.ticket(SESSION))).toBeNull();
    expect(b.token('not a login')).toBeNull();
    expect(b.token(undefined)).toBeNull();
    advance(TICKET_TTL_MS);
    expect(await b.exchange(late)).toBeNull();
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
