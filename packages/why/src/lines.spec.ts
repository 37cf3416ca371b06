import { refOf } from '@world/canonical';
import { headingLine, linkLine, summaryLine } from './lines.js';
import type { Link } from './link.js';

const ref = refOf('x');
const short = `${ref.slice(0, 15)}…`;

describe('why output lines (world-spec §7.3 example)', () => {
  it('heads the walk with the entry and how it was matched', () => {
    expect(headingLine({ index: 2, matchedBy: 'matched by output (sha256 of the result)' })).toBe(
      'why: entry 2 (matched by output (sha256 of the result))',
    );
    expect(headingLine({ index: 0, matchedBy: null })).toBe('why: entry 0');
  });

  const rows: Array<[string, Link, string]> = [
    [
      '§7.3 a holding link',
      { name: 'world', ok: true, ref, detail: 'revision 2 (recomputed)' },
      `  ✓ world   ${short}  revision 2 (recomputed)`,
    ],
    [
      '§7.3 the widest name',
      { name: 'output', ok: true, ref, detail: '416 B = world.stateRoot' },
      `  ✓ output  ${short}  416 B = world.stateRoot`,
    ],
    [
      '§7.3 a broken link',
      { name: 'record', ok: false, ref, detail: 'not found' },
      `  ✗ record  ${short}  not found`,
    ],
    [
      'a link that could not be checked',
      { name: 'world', ok: null, ref: '-', detail: 'why not' },
      '  - world   -  why not',
    ],
  ];
  it.each(rows)('%s', (_row, link, line) => expect(linkLine(link)).toBe(line));

  const summaries: Array<[string, Array<boolean | null>, string]> = [
    ['§7.3 all hold', [true, true, true, true, true, true, true], 'all 7 link(s) verified'],
    ['§7.3 one broken', [true, true, false], '1 of 3 link(s) broken'],
    ['genesis: one not checkable', [null, true, true], 'all 2 link(s) verified (1 not checkable)'],
  ];
  it.each(summaries)('summary: %s', (_row, oks, line) => {
    expect(summaryLine(oks.map((ok) => ({ name: 'entry', ok, ref, detail: '' })))).toBe(line);
  });
});
