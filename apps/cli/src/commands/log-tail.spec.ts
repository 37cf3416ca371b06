import { MemoryLedger } from '../../../../packages/why/test/provenance-fixture.js';
import { effectStatus } from '@world/why';
import { parseFromOption, tailLine } from './log-tail.js';
import { CliError } from './util.js';

describe('tailLine (world-spec §7.3 `log tail` lines)', () => {
  it('prints index, hash, writer, episode, skill and each effect with its status', async () => {
    const ledger = new MemoryLedger();
    const ok = ledger.invoke('a.txt', 'ok');
    const refused = ledger.invoke('../a', 'refused');
    const denied = ledger.invoke('a.txt', 'denied');
    const rest = ledger.restCommit('rest:1');
    const hex = (ref: string) => ref.slice(7, 15);
    expect(await Promise.all(ledger.entries_.map((e) => tailLine(e, ledger)))).toEqual([
      `#0 ${hex(ledger.entries_[0]!.entryHash)} ledger:genesis`,
      `#1 ${hex(ok.entry.entryHash)} coordinator:mcp ep1 ailang-read [Workspace.Read ok]`,
      `#2 ${hex(refused.entry.entryHash)} coordinator:mcp ep1 ailang-read [no effects]`,
      `#3 ${hex(denied.entry.entryHash)} coordinator:mcp ep1 ailang-read [Workspace.Read denied]`,
      `#4 ${hex(rest.entry.entryHash)} quickstart`,
    ]);
  });
  it('says when the record is not there', async () => {
    const ledger = new MemoryLedger();
    const inv = ledger.invoke('a.txt');
    ledger.objects.delete(inv.record.hash);
    expect(await tailLine(inv.entry, ledger)).toBe(
      `#1 ${inv.entry.entryHash.slice(7, 15)} coordinator:mcp (record ${inv.record.hash.slice(0, 15)}… not found)`,
    );
  });
});

describe('effectStatus (world-spec §2.8 three-arm law, §4.2 statuses)', () => {
  it.each([
    ['succeeded', { allowed: true, failed: false }, 'ok'],
    ['failed', { allowed: true, failed: true }, 'failed'],
    ['denied', { allowed: false, failed: false }, 'denied'],
  ])('%s → %s', (_row, record, status) => expect(effectStatus(record)).toBe(status));
});

describe('parseFromOption', () => {
  it.each([
    [undefined, undefined],
    ['0', 0],
    ['42', 42],
  ])('%s → %s', (text, n) => expect(parseFromOption(text)).toBe(n));
  it.each(['-1', 'x', '1.5'])('refuses %s (exit 2)', (text) =>
    expect(() => parseFromOption(text)).toThrow(
      new CliError(`--from "${text}" must be a non-negative integer`, 2),
    ),
  );
});
