/**
 * The printed lines of a walk (world-spec §7.3 example): the heading, one ✓/✗ line per link and
 * the summary — the CLI prints them, the workbench shows the same summary.
 */
import { shortRef } from './format.js';
import type { Located } from './target.js';
import type { Link } from './link.js';

/** Width of the link-name column (`record  `, world-spec §7.3 example). */
const NAME_WIDTH = 'output'.length + 2;

const MARK = { true: '✓', false: '✗', null: '-' } as const;

/** The heading line: `why: entry 2 (matched by output (sha256 of the result))`. */
export function headingLine(located: Pick<Located, 'index' | 'matchedBy'>): string {
  return `why: entry ${located.index}${located.matchedBy === null ? '' : ` (${located.matchedBy})`}`;
}

/** One link line: `  ✓ world   sha256:08ab69ae…  revision 2, …`. */
export function linkLine(l: Link): string {
  return `  ${MARK[String(l.ok) as 'true' | 'false' | 'null']} ${l.name.padEnd(NAME_WIDTH)}${shortRef(l.ref)}  ${l.detail}`;
}

/**
 * The summary line: `all 7 link(s) verified` or `2 of 7 link(s) broken`, naming unchecked ones
 * and the ones not visible to the caller (never counted as broken).
 */
export function summaryLine(links: Link[]): string {
  const broken = links.filter((l) => l.ok === false).length;
  const checked = links.filter((l) => l.ok !== null).length;
  const hidden = links.filter((l) => l.hidden === true).length;
  const unchecked = links.length - checked - hidden;
  const notes = [
    ...(unchecked === 0 ? [] : [`${unchecked} not checkable`]),
    ...(hidden === 0 ? [] : [`${hidden} not visible to this session`]),
  ];
  const note = notes.length === 0 ? '' : ` (${notes.join(', ')})`;
  return broken === 0
    ? `all ${checked} link(s) verified${note}`
    : `${broken} of ${checked} link(s) broken${note}`;
}
