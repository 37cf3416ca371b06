import { entryHash, refOf } from '@world/canonical';
import { NOT_VISIBLE, shortRef as short, type Provenance } from '@world/why';
import { MemoryLedger, PIN } from '../../../../packages/why/test/provenance-fixture.js';
import { entryBody } from './entry-page.js';
import type { LogProofReads } from './proof-section.js';

/** `reads` with every call recorded as `<method> <arguments>`. */
function counting(reads: Provenance, calls: string[]): Provenance {
  return new Proxy(reads, {
    get(target, name) {
      const value = (target as unknown as Record<string | symbol, unknown>)[name];
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push([String(name), ...args.map(String)].join(' '));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/** A log with no checkpoint yet: the proof section is a named stop. */
const NO_LOG: LogProofReads = {
  key: async () => 'world.test/log+00000000+AAAA',
  checkpoint: async () => {
    throw new Error('no checkpoint signed yet');
  },
  inclusion: async () => {
    throw new Error('not asked');
  },
};

describe('entry page', () => {
  it('reads each object, entry and world of an invocation once while walking and showing it', async () => {
    const ledger = new MemoryLedger();
    const inv = ledger.invoke('notes.txt');
    const calls: string[] = [];
    const body = await entryBody(counting(ledger, calls), NO_LOG, inv.index);
    expect([...calls].sort()).toEqual(
      [
        `entry ${inv.index}`,
        `entry ${inv.index - 1}`,
        'pin',
        `world ${inv.world.ref}`,
        `object ${inv.record.hash}`,
        `object ${inv.input.hash}`,
        `object ${inv.plan.hash}`,
        `object ${inv.output.hash}`,
        `object ${inv.effectRecord!.hash}`,
        `brokerRecord ${inv.effectRecord!.hash}`,
        `object ${inv.request!.hash}`,
        `object ${inv.result!.hash}`,
      ].sort(),
    );
    const text = body!.text;
    // the sections in the record's order, every link ✓, the proof a named stop
    expect([...text.matchAll(/<h2>([^<]+)<\/h2>/g)].map((m) => m[1])).toEqual([
      'links',
      'record',
      'input',
      'plan',
      'output',
      'effect record 1',
      'request',
      'result',
      'inclusion proof',
    ]);
    expect(text).toContain('<dd class="decision">allowed</dd>');
    expect(text).toContain('<dd class="budget">49 → 48</dd>');
    expect(text).toContain('stop: no signed checkpoint: no checkpoint signed yet');
  });

  /** Every link of a page body, in document order: [href, the text it shows]. */
  const linksOf = (text: string) =>
    [...text.matchAll(/<a href="([^"]*)"[^>]*>\s*(?:<code>)?([^<]*)/g)].map((m) => [m[1]!, m[2]!]);

  it('links every ref to the page that shows it: entries, the world walk, each object', async () => {
    const ledger = new MemoryLedger();
    const inv = ledger.invoke('notes.txt');
    const body = (await entryBody(ledger, NO_LOG, inv.index))!.text;
    const object = (ref: string, text = ref) => [`/workbench/objects/${ref}`, text];
    const h = inv.entry.header;
    expect(linksOf(body)).toEqual([
      // header: the entry itself, the entry before, the record, the transition and interpreter
      [`/workbench/entry/${inv.index}`, inv.entry.entryHash],
      [`/workbench/entry/${inv.index - 1}`, h.prevEntryHash],
      object(inv.record.hash),
      object(h.transitionFn, short(h.transitionFn)),
      object(PIN.ref, short(PIN.ref)),
      // the walk: the world ref walked in Why (a world is no object), the entry, every object
      [`/workbench/why?target=${inv.world.ref}`, short(inv.world.ref)],
      [`/workbench/entry/${inv.index}`, short(inv.entry.entryHash)],
      object(inv.record.hash, short(inv.record.hash)),
      object(inv.input.hash, short(inv.input.hash)),
      object(inv.plan.hash, short(inv.plan.hash)),
      object(inv.effectRecord!.hash, short(inv.effectRecord!.hash)),
      object(inv.output.hash, short(inv.output.hash)),
      [`/workbench/why?target=${inv.index}`, 'walk in Why'],
      // the sections: record, input, plan, output, the effect record with its request and result
      object(inv.record.hash),
      object(inv.input.hash),
      object(inv.plan.hash),
      object(inv.output.hash),
      object(inv.effectRecord!.hash),
      object(inv.request!.hash),
      object(inv.result!.hash),
    ]);
  });

  it("names another episode's record a stop, never a link to a page the viewer may not open", async () => {
    const ledger = new MemoryLedger();
    const inv = ledger.invoke('notes.txt');
    ledger.hidden.add(inv.record.hash);
    const body = (await entryBody(ledger, NO_LOG, inv.index))!.text;
    expect(linksOf(body).map(([href]) => href)).toEqual([
      `/workbench/entry/${inv.index}`,
      `/workbench/entry/${inv.index - 1}`,
      `/workbench/objects/${inv.entry.header.transitionFn}`,
      `/workbench/objects/${PIN.ref}`,
      `/workbench/entry/${inv.index}`,
      `/workbench/why?target=${inv.index}`,
    ]);
    const stop = `<code>${inv.record.hash}</code> <span class="stop hidden">stop: ${NOT_VISIBLE.replace("'", '&#39;')}</span>`;
    // in the header and as the record's section, which has no raw JSON to open
    expect(body.split(stop)).toHaveLength(3);
    expect(body).not.toContain('<summary>raw JSON</summary>');
  });

  /** The text of the header's `<dd class="…">` as shown: tags dropped, white space squashed. */
  const dd = (text: string, cls: string) =>
    new RegExp(`<dd class="${cls}">([\\s\\S]*?)</dd>`)
      .exec(text)![1]!
      .replace(/<[^>]+>/g, '')
      .replace(/&#39;/g, "'")
      .replace(/\s+/g, ' ')
      .trim();

  it("marks the header's prev and transition ref as recomputed: ✓, or ✗ saying what broke", async () => {
    const ledger = new MemoryLedger();
    const before = ledger.invoke('a.txt');
    const inv = ledger.invoke('notes.txt');
    const intact = (await entryBody(ledger, NO_LOG, inv.index))!.text;
    expect(dd(intact, 'prev')).toBe(`${inv.entry.header.prevEntryHash} ✓`);
    expect(dd(intact, 'transition-ref')).toBe(`${inv.record.hash} ✓`);
    // entry index-1's fields altered in storage; this entry's record bytes altered
    ledger.entries_[before.index] = {
      ...before.entry,
      header: { ...before.entry.header, writtenBy: 'coordinator:a2a' },
    };
    ledger.tamper(inv.record.hash, '{"forged":true}');
    const broken = (await entryBody(ledger, NO_LOG, inv.index))!.text;
    const fields = entryHash(
      { ...before.entry.header, writtenBy: 'coordinator:a2a' },
      before.entry.transitionRef,
    );
    expect(dd(broken, 'prev')).toBe(
      `${inv.entry.header.prevEntryHash} ✗ entry #${before.index}'s fields hash to ${short(fields)}, not its stored hash ${short(before.entry.entryHash)}: prev cannot be linked`,
    );
    expect(dd(broken, 'transition-ref')).toBe(
      `${inv.record.hash} ✗ payload hashes to ${short(refOf('{"forged":true}'))}, not its ref: the stored bytes were altered`,
    );
  });

  it('shows the genesis prev as what it is: no entry before it to link', async () => {
    const body = (await entryBody(new MemoryLedger(), NO_LOG, 0))!.text;
    expect(body).toContain(
      '<code>sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855</code>',
    );
    expect(body).toContain('(the genesis prev, sha256 of nothing: no entry before)');
    expect(dd(body, 'prev')).toBe(
      'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 (the genesis prev, sha256 of nothing: no entry before) ✓',
    );
    expect(linksOf(body).map(([href]) => href)).not.toContain('/workbench/entry/-1');
  });

  it('answers null for an entry that does not exist, reading nothing more', async () => {
    const calls: string[] = [];
    expect(await entryBody(counting(new MemoryLedger(), calls), NO_LOG, 5)).toBeNull();
    expect(calls).toEqual(['entry 5']);
  });
});
