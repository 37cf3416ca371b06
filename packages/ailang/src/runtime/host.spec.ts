import { StandardHost } from './host.js';
import { AilRuntimeError } from './values.js';

const host = (caps: string[], budgets: [string, number][] = []): StandardHost =>
  new StandardHost({
    stdout: () => undefined,
    stderr: () => undefined,
    stdin: 'a\nb',
    caps: new Set(caps),
    budgets: new Map(budgets),
    sandbox: null,
    args: [],
    env: new Map(),
  });

describe('StandardHost.charge (ailang.md §3: capability first, then budget)', () => {
  it('refuses an effect without its capability, with the real message', () => {
    expect(() => host(['IO']).charge('Net')).toThrow(
      new AilRuntimeError("effect 'Net' requires capability, but none provided"),
    );
  });

  it('counts operations against a budget and refuses past it', () => {
    const h = host(['FS'], [['FS', 1]]);
    h.charge('FS');
    expect(() => h.charge('FS')).toThrow(
      new AilRuntimeError("effect 'FS' budget exhausted: limit=1, used=1"),
    );
  });

  it('refuses the first use of an effect budgeted 0 (world-spec §3.5 FS at budget 0)', () => {
    expect(() => host(['FS', 'IO'], [['FS', 0]]).charge('FS')).toThrow(
      new AilRuntimeError("effect 'FS' budget exhausted: limit=0, used=0"),
    );
  });

  it('reads stdin lines and reports the end of input as null', () => {
    const h = host([]);
    expect([h.readLine(), h.readLine(), h.readLine()]).toEqual(['a', 'b', null]);
  });
});
