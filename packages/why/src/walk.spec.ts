import { canonicalJson, entryHash, refOf } from '@world/canonical';
import { MemoryLedger, PIN, type Invocation } from '../test/provenance-fixture.js';
import { shortRef } from './format.js';
import { NOT_VISIBLE, objectProblems, shortInvocation } from './link.js';
import { summaryLine } from './lines.js';
import { walk, type Link, type WalkStart } from './walk.js';

/** Each link as `<name><mark>`: ✓ holds, ✗ broken, - not checkable. */
const marks = (links: Link[] | null) =>
  links?.map((l) => `${l.name}${l.ok === true ? '✓' : l.ok === false ? '✗' : '-'}`);

/** A JSON payload re-serialised with one field changed. */
function changed(ledger: MemoryLedger, ref: string, patch: Record<string, unknown>): string {
  return canonicalJson({
    ...JSON.parse(ledger.objects.get(ref)!.payload.toString('utf8')),
    ...patch,
  });
}

/** The `world` block of an invocation's committed output. */
const worldOf = (inv: Invocation) => JSON.parse(inv.outputBytes.toString('utf8')).world;

describe('walk (world-spec §7.3 `why`, §9 provenance walks)', () => {
  type Row = [string, (l: MemoryLedger, inv: Invocation) => Partial<WalkStart> | void, string[]];
  const ALL = ['world✓', 'entry✓', 'record✓', 'input✓', 'plan✓', 'effect✓', 'output✓'];
  const rows: Row[] = [
    ['§7.3 an intact call: every link holds', () => undefined, ALL],
    [
      '§7.3: stored output bytes altered → ✗ output only',
      (l, inv) => l.tamper(inv.output.hash, changed(l, inv.output.hash, { content: 'forged' })),
      ['world✓', 'entry✓', 'record✓', 'input✓', 'plan✓', 'effect✓', 'output✗'],
    ],
    [
      '§2.14 record bytes altered → ✗ record',
      (l, inv) =>
        l.tamper(inv.record.hash, changed(l, inv.record.hash, { skillId: 'ailang-write' })),
      ['world✓', 'entry✓', 'record✗', 'input✓', 'plan✓', 'effect✓', 'output✓'],
    ],
    [
      '§2.14 input bytes altered → ✗ input',
      (l, inv) => l.tamper(inv.input.hash, '{"path":"other.txt"}'),
      ['world✓', 'entry✓', 'record✓', 'input✗', 'plan✓', 'effect✓', 'output✓'],
    ],
    [
      '§2.5 plan bytes altered → ✗ plan',
      (l, inv) => l.tamper(inv.plan.hash, changed(l, inv.plan.hash, { finish: true })),
      ['world✓', 'entry✓', 'record✓', 'input✓', 'plan✗', 'effect✓', 'output✓'],
    ],
    [
      '§2.8 effect record bytes altered → ✗ effect',
      (l, inv) =>
        l.tamper(inv.effectRecord!.hash, changed(l, inv.effectRecord!.hash, { budgetAfter: 40 })),
      ['world✓', 'entry✓', 'record✓', 'input✓', 'plan✓', 'effect✗', 'output✓'],
    ],
    [
      '§9.1 request bytes altered → ✗ effect',
      (l, inv) => l.tamper(inv.request!.hash, changed(l, inv.request!.hash, { cost: 0 })),
      ['world✓', 'entry✓', 'record✓', 'input✓', 'plan✓', 'effect✗', 'output✓'],
    ],
    [
      '§9.1 result bytes altered → ✗ effect',
      (l, inv) => l.tamper(inv.result!.hash, '{"ok":true,"content":"forged"}'),
      ['world✓', 'entry✓', 'record✓', 'input✓', 'plan✓', 'effect✗', 'output✓'],
    ],
    [
      '§2.11 a header field changed → the entry hash no longer recomputes (and the writer is not the mcp coordinator)',
      (l, inv) => {
        l.entries_[inv.index] = {
          ...inv.entry,
          header: { ...inv.entry.header, writtenBy: 'coordinator:a2a' },
        };
      },
      ['world✓', 'entry✗', 'record✗', 'input✓', 'plan✓', 'effect✓', 'output✓'],
    ],
    [
      'DESIGN.md §3 an entry not written by the coordinator presents an invocation record → ✗ record',
      (l, inv) => {
        const header = { ...inv.entry.header, writtenBy: 'episode:ep2' };
        l.entries_[inv.index] = {
          ...inv.entry,
          header,
          entryHash: entryHash(header, inv.entry.transitionRef),
        };
      },
      ['world✗', 'entry✓', 'record✗', 'input✓', 'plan✓', 'effect✓', 'output✓'],
    ],
    [
      "DESIGN.md §3 an effect record World's broker never wrote → ✗ effect",
      (l, inv) => {
        l.brokerRecords.delete(inv.effectRecord!.hash);
      },
      ['world✓', 'entry✓', 'record✓', 'input✓', 'plan✓', 'effect✗', 'output✓'],
    ],
    [
      'DESIGN.md §3 World refuses to serve the stored output (StoredObjectCorrupt) → ✗ output',
      (l, inv) => {
        l.refused.set(inv.output.hash, 'stored object corrupt: …');
      },
      ['world✓', 'entry✓', 'record✓', 'input✓', 'plan✓', 'effect✓', 'output✗'],
    ],
    [
      'DESIGN.md §3 World refuses to serve the stored record → ✗ record, nothing more walked',
      (l, inv) => {
        l.refused.set(inv.record.hash, 'stored object corrupt: …');
      },
      ['world-', 'entry✓', 'record✗'],
    ],
    [
      '§2.11 the previous entry is not the one linked → ✗ entry',
      (l, inv) => {
        const prev = l.entries_[inv.index - 1]!;
        l.entries_[inv.index - 1] = { ...prev, entryHash: refOf('another entry') };
      },
      ['world✓', 'entry✗', 'record✓', 'input✓', 'plan✓', 'effect✓', 'output✓'],
    ],
    [
      '§2.12 the recomputed world is not stored → ✗ world',
      (l, inv) => {
        l.worlds.delete(inv.world.ref);
      },
      ['world✗', 'entry✓', 'record✓', 'input✓', 'plan✓', 'effect✓', 'output✓'],
    ],
    [
      '§7.3 a given world whose ref does not recompute → ✗ world',
      (_l, inv) => ({ world: { ...inv.world, ref: refOf('elsewhere') } }),
      ['world✗', 'entry✓', 'record✓', 'input✓', 'plan✓', 'effect✓', 'output✓'],
    ],
    [
      '§7.3 `why -` with the committed bytes → ✓ output',
      (_l, inv) => ({ result: inv.outputBytes }),
      ALL,
    ],
    [
      '§7.3 `why -` with other bytes → ✗ output',
      (_l, inv) => ({
        result: Buffer.from(inv.outputBytes.toString('utf8').replace('text of', 'TEXT OF')),
      }),
      ['world✓', 'entry✓', 'record✓', 'input✓', 'plan✓', 'effect✓', 'output✗'],
    ],
    [
      "`why -` with the output's world block → ✓ output",
      (_l, inv) => ({ worldBlock: Buffer.from(canonicalJson(worldOf(inv))) }),
      ALL,
    ],
    [
      '`why -` with a world block naming another effect record → ✗ output',
      (_l, inv) => ({
        worldBlock: Buffer.from(
          canonicalJson({
            ...worldOf(inv),
            effects: [{ id: 'e1', status: 'ok', record: refOf('another') }],
          }),
        ),
      }),
      ['world✓', 'entry✓', 'record✓', 'input✓', 'plan✓', 'effect✓', 'output✗'],
    ],
  ];

  it.each(rows)('%s', async (_row, arrange, expected) => {
    const ledger = new MemoryLedger();
    const inv = ledger.invoke('notes.txt');
    ledger.invoke('later.txt');
    const start = arrange(ledger, inv) ?? {};
    expect(marks(await walk(ledger, { index: inv.index, ...start }))).toEqual(expected);
  });

  it('names what a given world block shows: the committed one, or where it differs', async () => {
    const ledger = new MemoryLedger();
    const inv = ledger.invoke('notes.txt');
    const output = async (block: unknown) =>
      (await walk(ledger, { index: 1, worldBlock: Buffer.from(canonicalJson(block)) }))!.at(-1);
    expect(await output(worldOf(inv))).toEqual({
      name: 'output',
      ok: true,
      ref: inv.output.hash,
      detail: `${inv.output.payload.length} B = world.stateRoot; your world block is its world block`,
    });
    expect(await output({ ...worldOf(inv), plan: refOf('other') })).toEqual({
      name: 'output',
      ok: false,
      ref: inv.output.hash,
      detail: `your world block differs from the committed output's world block`,
    });
  });

  it('describes every link of an intact call as the §7.3 example does', async () => {
    const ledger = new MemoryLedger();
    const inv = ledger.invoke('notes.txt', 'ok', 'f00dfeed0123456789abcdef0123456789');
    const links = (await walk(ledger, { index: 1, result: inv.outputBytes }))!;
    expect(links.map((l) => [l.name, l.ref, l.detail])).toEqual([
      [
        'world',
        inv.world.ref,
        `revision 1, stateRoot ${shortRef(inv.output.hash)}, logHead ${shortRef(inv.entry.entryHash)} (recomputed)`,
      ],
      [
        'entry',
        inv.entry.entryHash,
        `#1 writtenBy coordinator:mcp prev ${shortRef(ledger.entries_[0]!.entryHash)} transitionFn ${shortRef(inv.entry.header.transitionFn)} interpreter ${shortRef(PIN.ref)} (${PIN.version}, the planner's pin)`,
      ],
      [
        'record',
        inv.record.hash,
        'world/invocation-record/v2 invocation mcp:ep1:f00dfeed… episode ep1 skill ailang-read',
      ],
      ['input', inv.input.hash, '{"path":"notes.txt"}'],
      ['plan', inv.plan.hash, '1 effect(s): e1 Workspace.Read@worktree cost 1'],
      [
        'effect',
        inv.effectRecord!.hash,
        `e1 allowed Workspace.Read@worktree cost 1 budget 49→48 request ${inv.request!.payload.length} B result ${inv.result!.payload.length} B`,
      ],
      [
        'output',
        inv.output.hash,
        `${inv.output.payload.length} B = world.stateRoot; your result is these exact bytes`,
      ],
    ]);
  });

  it('names the altered bytes on the output link', async () => {
    const ledger = new MemoryLedger();
    const inv = ledger.invoke('notes.txt');
    ledger.tamper(inv.output.hash, '{"forged":true}');
    const output = (await walk(ledger, { index: 1 }))!.at(-1)!;
    expect(output).toEqual({
      name: 'output',
      ok: false,
      ref: inv.output.hash,
      detail: `payload hashes to ${shortRef(refOf('{"forged":true}'))}, not its ref: the stored bytes were altered`,
    });
  });

  it("names why an effect record is not the broker's, and why World refused bytes (DESIGN.md §3)", async () => {
    const ledger = new MemoryLedger();
    const inv = ledger.invoke('notes.txt');
    ledger.brokerRecords.delete(inv.effectRecord!.hash);
    ledger.refused.set(inv.output.hash, `stored object corrupt: object ${inv.output.hash} …`);
    const links = (await walk(ledger, { index: 1 }))!;
    expect([links[5]!.detail, links[6]!.detail]).toEqual([
      "World's broker holds no such record (GET /v1/effects: not found): it never wrote it",
      `the stored bytes were altered: World refuses to serve them (stored object corrupt: object ${inv.output.hash} …)`,
    ]);
  });

  it('walks a refused call (§4.4 (B)): a plan with no effect, no effect link', async () => {
    const ledger = new MemoryLedger();
    const inv = ledger.invoke('../x', 'refused');
    const links = (await walk(ledger, { index: inv.index }))!;
    expect(marks(links)).toEqual(['world✓', 'entry✓', 'record✓', 'input✓', 'plan✓', 'output✓']);
    expect(links[4]!.detail).toBe('0 effect(s): refused "path \\"../x\\" refused"');
  });

  it('walks a denied call (§4.4 (D)): the record names its denial, nothing spent, no result', async () => {
    const ledger = new MemoryLedger();
    const inv = ledger.invoke('notes.txt', 'denied');
    const links = (await walk(ledger, { index: inv.index }))!;
    expect(marks(links)).toEqual([
      'world✓',
      'entry✓',
      'record✓',
      'input✓',
      'plan✓',
      'effect✓',
      'output✓',
    ]);
    expect(links[5]!.detail).toBe(
      `e1 denied:budget Workspace.Read@worktree cost 1 budget 0→0 request ${inv.request!.payload.length} B`,
    );
  });

  it('walks the genesis entry: its world cannot be recomputed from the entry alone', async () => {
    const ledger = new MemoryLedger();
    const links = (await walk(ledger, { index: 0 }))!;
    expect(marks(links)).toEqual(['world-', 'entry✓', 'record✓']);
    expect(links[2]!.detail).toBe(
      'world/genesis/v1 (not an invocation record: nothing more to walk)',
    );
  });

  it('walks a REST entry whose world the receipt named (§5.11)', async () => {
    const ledger = new MemoryLedger();
    const rest = ledger.restCommit('rest:demo-1');
    expect(
      marks(await walk(ledger, { index: rest.entry.header.entryIndex, world: rest.world })),
    ).toEqual(['world✓', 'entry✓', 'record✓', 'output✓']);
  });

  it("another episode's head (DESIGN.md §3): its record and output are named stops, not broken", async () => {
    const ledger = new MemoryLedger();
    const inv = ledger.invoke('notes.txt');
    ledger.hidden.add(inv.record.hash);
    ledger.hidden.add(inv.output.hash);
    const links = await walk(ledger, { index: inv.index, world: inv.world });
    expect(marks(links)).toEqual(['world✓', 'entry✓', 'record-', 'output-']);
    expect(links!.slice(2)).toEqual([
      { name: 'record', ok: null, ref: inv.record.hash, detail: NOT_VISIBLE, hidden: true },
      { name: 'output', ok: null, ref: inv.output.hash, detail: NOT_VISIBLE, hidden: true },
    ]);
    expect(summaryLine(links!)).toBe('all 2 link(s) verified (2 not visible to this session)');
  });

  describe('a header row tampered in the database (written_by changed, entry hash kept)', () => {
    const tampered = () => {
      const ledger = new MemoryLedger();
      const inv = ledger.invoke('notes.txt');
      const next = ledger.invoke('later.txt');
      const after = ledger.invoke('last.txt');
      const header = { ...inv.entry.header, writtenBy: 'coordinator:a2a' };
      ledger.entries_[inv.index] = { ...inv.entry, header, corrupt: 'log entry … has fields …' };
      return { ledger, inv, next, after, fields: entryHash(header, inv.entry.transitionRef) };
    };

    it('its own entry link names both hashes', async () => {
      const { ledger, inv, fields } = tampered();
      const links = await walk(ledger, { index: inv.index });
      expect(links!.find((l) => l.name === 'entry')).toEqual({
        name: 'entry',
        ok: false,
        ref: inv.entry.entryHash,
        detail: `fields hash to ${shortRef(fields)}, not its stored hash ${shortRef(inv.entry.entryHash)}`,
      });
    });

    it('the next entry: ✗ on its link to the tampered one only; later entries untouched', async () => {
      const { ledger, inv, next, after, fields } = tampered();
      const links = await walk(ledger, { index: next.index });
      expect(marks(links)).toEqual([
        'world✓',
        'entry✗',
        'record✓',
        'input✓',
        'plan✓',
        'effect✓',
        'output✓',
      ]);
      expect(links![1]!.detail).toBe(
        `entry #${inv.index}'s fields hash to ${shortRef(fields)}, not its stored hash ${shortRef(inv.entry.entryHash)}: prev cannot be linked`,
      );
      expect(marks(await walk(ledger, { index: after.index }))).toEqual(ALL);
    });

    it('World refusing the entry (no fields served): a named stop, and ✗ on the next link', async () => {
      const { ledger, inv, next } = tampered();
      const problem = `log entry ${inv.index} (…) has fields that hash to …`;
      ledger.refusedEntries.set(inv.index, problem);
      expect(await walk(ledger, { index: inv.index })).toEqual([
        {
          name: 'entry',
          ok: false,
          ref: '-',
          detail: `World refuses to serve log entry ${inv.index} as valid: ${problem}`,
        },
      ]);
      const links = await walk(ledger, { index: next.index });
      expect(links![1]).toMatchObject({
        name: 'entry',
        ok: false,
        detail: `World refuses to serve log entry ${inv.index} as valid: ${problem}: prev cannot be linked`,
      });
    });
  });

  it('answers null for an entry that does not exist', async () => {
    expect(await walk(new MemoryLedger(), { index: 7 })).toBeNull();
  });
});

describe('objectProblems (world-spec §2.13: hash = sha256 of the payload bytes)', () => {
  const payload = Buffer.from('{"a":1}');
  const rows: Array<
    [string, string, { semanticId: string; payload: Buffer } | null, string[] | undefined, string[]]
  > = [
    [
      '§2.13 bytes that hash to the ref',
      refOf(payload),
      { semanticId: 'x/v1', payload },
      undefined,
      [],
    ],
    ['§2.13 an absent object', refOf(payload), null, undefined, ['not found']],
    [
      '§2.13 bytes that do not hash to the ref',
      refOf('other'),
      { semanticId: 'x/v1', payload },
      undefined,
      [`payload hashes to ${shortRef(refOf(payload))}, not its ref: the stored bytes were altered`],
    ],
    [
      '§2.13 another semantic id than expected',
      refOf(payload),
      { semanticId: 'x/v1', payload },
      ['y/v1'],
      ['is x/v1, not y/v1'],
    ],
  ];
  it.each(rows)('%s', (_row, ref, object, ids, expected) => {
    expect(
      objectProblems(ref, object === null ? null : { hash: ref, provenance: 'p', ...object }, ids),
    ).toEqual(expected);
  });
});

describe('shortInvocation (world-spec §7.3 example: a2a:ep1:9ebcd16a…)', () => {
  it.each([
    ['mcp:ep1:' + 'a'.repeat(64), 'mcp:ep1:aaaaaaaa…'],
    ['mcp:ep1:t1', 'mcp:ep1:t1'],
    ['a2a:ep1:0123456789abcdef', 'a2a:ep1:0123456789abcdef'],
  ])('%s → %s', (id, short) => expect(shortInvocation(id)).toBe(short));
});
