import type { Provenance } from '@world/why';
import { MemoryLedger } from '../../../../packages/why/test/provenance-fixture.js';
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

  it('answers null for an entry that does not exist, reading nothing more', async () => {
    const calls: string[] = [];
    expect(await entryBody(counting(new MemoryLedger(), calls), NO_LOG, 5)).toBeNull();
    expect(calls).toEqual(['entry 5']);
  });
});
