import { canonicalJson, refOf } from '@world/canonical';
import { MemoryLedger } from '../test/provenance-fixture.js';
import { shortRef } from './format.js';
import { WhyError } from './target.js';
import { locate, NotFoundTarget, parseScan, parseTarget, type Target } from './target.js';

describe('parseTarget (world-spec §7.3 why targets)', () => {
  const ref = refOf('x');
  const rows: Array<[string, string, Target | string]> = [
    ['§7.3 an index', '12', { kind: 'index', index: 12 }],
    ['§7.3 head', 'head', { kind: 'head' }],
    ['§7.3 a ref', ref, { kind: 'ref', ref }],
    ['§7.3 an a2a id', 'a2a:ep1:task-1', { kind: 'invocation', id: 'a2a:ep1:task-1' }],
    ['DESIGN §7.4 an mcp id', 'mcp:ep1:t.1', { kind: 'invocation', id: 'mcp:ep1:t.1' }],
    ['§7.3 a rest id', 'rest:demo-1', { kind: 'rest', id: 'rest:demo-1' }],
    ['§7.3 - reads a result', '-', { kind: 'result' }],
    [
      '§2.13 an uppercase digest',
      `sha256:${'A'.repeat(64)}`,
      `why: "sha256:${'A'.repeat(64)}" is not a ref (sha256:<64 lowercase hex>)`,
    ],
    [
      '§10 an invocation id without a task',
      'mcp:ep1',
      'why: "mcp:ep1" is not an invocation id (<a2a|mcp>:<episode>:<task id>)',
    ],
    ['§5.10 rest: alone', 'rest:', 'why: "rest:" is not a REST invocation id (rest:<id>)'],
    [
      '§7.3 anything else',
      'latest',
      'why: target "latest" must be an entry index, head, sha256:<ref>, a2a:<id>, mcp:<id>, rest:<id> or - (a result on stdin)',
    ],
  ];
  it.each(rows)('%s', (_row, text, expected) => {
    if (typeof expected === 'string')
      expect(() => parseTarget(text)).toThrow(new WhyError(expected, 2));
    else expect(parseTarget(text)).toEqual(expected);
  });
  it('makes a malformed target a usage error (exit 2)', () => {
    expect(() => parseTarget('latest')).toThrow(expect.objectContaining({ exitCode: 2 }));
  });
});

describe('parseScan (world-spec §7.3: default 500, max 5000)', () => {
  it.each([
    [undefined, 500],
    ['1', 1],
    ['5000', 5000],
  ])('%s → %s', (text, n) => expect(parseScan(text)).toBe(n));
  it.each(['0', '5001', '-3', 'many'])('refuses %s', (text) =>
    expect(() => parseScan(text)).toThrow(new WhyError(`--scan "${text}" must be 1..5000`, 2)),
  );
});

describe('locate (world-spec §7.3: how each target finds its entry)', () => {
  const build = () => {
    const ledger = new MemoryLedger();
    const first = ledger.invoke('a.txt', 'ok', 'first');
    const second = ledger.invoke('b.txt', 'ok', 'second');
    const rest = ledger.restCommit('rest:demo-1');
    const third = ledger.invoke('c.txt', 'ok', 'third');
    return { ledger, first, second, rest, third };
  };

  it('takes an index as it is', async () => {
    const { ledger } = build();
    expect(await locate(ledger, { kind: 'index', index: 2 })).toEqual({
      index: 2,
      matchedBy: null,
    });
  });

  it('finds the head with its world', async () => {
    const { ledger, third } = build();
    expect(await locate(ledger, { kind: 'head' })).toEqual({
      index: 4,
      world: third.world,
      matchedBy: 'the head',
    });
  });

  it('finds a world ref through /v1/worlds, without a scan', async () => {
    const { ledger, second } = build();
    ledger.reads = 0;
    expect(await locate(ledger, { kind: 'ref', ref: second.world.ref })).toEqual({
      index: 2,
      world: second.world,
      matchedBy: `world ${shortRef(second.world.ref)}`,
    });
    expect(ledger.reads).toBe(0);
  });

  const roles: Array<[string, (b: ReturnType<typeof build>) => string, string]> = [
    ['record', (b) => b.second.record.hash, 'record'],
    ['input', (b) => b.second.input.hash, 'input'],
    ['output', (b) => b.second.output.hash, 'output'],
    ['plan', (b) => b.second.plan.hash, 'plan'],
    ['effect record', (b) => b.second.effectRecord!.hash, 'effect record'],
    ['request', (b) => b.second.request!.hash, 'request'],
    ['result', (b) => b.second.result!.hash, 'result'],
  ];
  it.each(roles)(
    "§7.3 finds the entry of a %s ref by the ledger's lookup",
    async (_role, refOfRole, role) => {
      const b = build();
      const ref = refOfRole(b);
      expect(await locate(b.ledger, { kind: 'ref', ref })).toEqual({
        index: 2,
        matchedBy: `matched by ${role} ${shortRef(ref)}`,
      });
    },
  );

  it('finds an invocation by its record invocationId', async () => {
    const { ledger } = build();
    expect(await locate(ledger, { kind: 'invocation', id: 'mcp:ep1:first' })).toEqual({
      index: 1,
      matchedBy: 'invocation mcp:ep1:first',
    });
  });

  it('finds a REST commit through its receipt', async () => {
    const { ledger, rest } = build();
    expect(await locate(ledger, { kind: 'rest', id: 'rest:demo-1' })).toEqual({
      index: 3,
      world: rest.world,
      matchedBy: `receipt rest:demo-1 → world ${shortRef(rest.world.ref)}`,
    });
  });

  it('finds a result by the sha256 of its canonical JSON, keeping its bytes', async () => {
    const { ledger, second } = build();
    // Pretty-printed: the canonical form (RFC 8785) is what World committed.
    const text = JSON.stringify(JSON.parse(second.outputBytes.toString('utf8')), null, 2);
    expect(await locate(ledger, { kind: 'result' }, { stdin: async () => text })).toEqual({
      index: 2,
      matchedBy: 'matched by output (sha256 of the result)',
      result: second.outputBytes,
    });
  });

  it('falls back to the result’s world.plan when no committed output has its sha256', async () => {
    const { ledger, first } = build();
    const forged = { ...JSON.parse(first.outputBytes.toString('utf8')), content: 'forged' };
    const located = await locate(
      ledger,
      { kind: 'result' },
      { stdin: async () => JSON.stringify(forged) },
    );
    expect(located).toEqual({
      index: 1,
      matchedBy: `matched by world.plan ${shortRef(first.plan.hash)}: no committed output has the result's sha256 ${shortRef(refOf(canonicalJson(forged)))}`,
      result: Buffer.from(canonicalJson(forged)),
    });
  });

  it("finds a result's world block alone by its plan, keeping the block to compare", async () => {
    const { ledger, first } = build();
    const block = JSON.parse(first.outputBytes.toString('utf8')).world;
    const located = await locate(
      ledger,
      { kind: 'result' },
      { stdin: async () => JSON.stringify(block, null, 2) },
    );
    expect(located).toEqual({
      index: 1,
      matchedBy: `matched by the world block's plan ${shortRef(first.plan.hash)}`,
      worldBlock: Buffer.from(canonicalJson(block)),
    });
    const unknown = { ...block, plan: refOf('no plan') };
    await expect(
      locate(ledger, { kind: 'result' }, { stdin: async () => JSON.stringify(unknown) }),
    ).rejects.toThrow(
      new NotFoundTarget(
        `why -: no committed record names the world block's plan ${shortRef(unknown.plan)}`,
      ),
    );
  });

  const misses: Array<[string, Target, string, (l: MemoryLedger) => void]> = [
    [
      '§7.3 an unknown ref',
      { kind: 'ref', ref: refOf('nothing') },
      `${refOf('nothing')}: no object or world has this ref`,
      () => undefined,
    ],
    [
      '§7.3 an unknown invocation id',
      { kind: 'invocation', id: 'a2a:ep1:none' },
      'a2a:ep1:none: no committed invocation record has this id',
      () => undefined,
    ],
    [
      '§5.11 a receipt never written',
      { kind: 'rest', id: 'rest:none' },
      'rest:none: no receipt; nothing committed under it',
      () => undefined,
    ],
    [
      '§5.11 an indeterminate receipt',
      { kind: 'rest', id: 'rest:half' },
      'rest:half: receipt is indeterminate; nothing committed under it',
      (l) => l.receipts.set('rest:half', { invocationId: 'rest:half', state: 'indeterminate' }),
    ],
  ];
  it.each(misses)('%s is not found (exit 1)', async (_row, target, message, arrange) => {
    const { ledger } = build();
    arrange(ledger);
    const err = await locate(ledger, target).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundTarget);
    expect(err).toMatchObject({ message, exitCode: 1 });
  });

  it('finds an invocation by one lookup, reading no record', async () => {
    const { ledger, first } = build();
    ledger.reads = 0;
    expect(await locate(ledger, { kind: 'invocation', id: first.invocationId })).toEqual({
      index: 1,
      matchedBy: `invocation ${first.invocationId}`,
    });
    expect(ledger.reads).toBe(0);
  });

  it('refuses a result on stdin that is not a JSON object (exit 2)', async () => {
    const { ledger } = build();
    await expect(locate(ledger, { kind: 'result' }, { stdin: async () => '[1]' })).rejects.toThrow(
      new WhyError('why -: standard input must be a result object', 2),
    );
  });
});
