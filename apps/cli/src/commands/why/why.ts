/**
 * `world why <index | head | sha256:REF | a2a:ID | mcp:ID | rest:ID | ->` (issue 4; world-spec
 * §7.3): locates one invocation's entry, walks every link and prints one ✓ or ✗ line per link
 * and a summary. Exit 0 when every link holds, 3 when any is broken, 1 when nothing is found.
 */
import { readFile } from 'node:fs/promises';
import { gatewayUrl, readerToken } from '../client/credentials.js';
import { shortRef } from '../client/format.js';
import { GatewayClient } from '../client/http.js';
import { HttpProvenance } from '../client/provenance.js';
import { EXIT_INTEGRITY } from '../agent.js';
import { warner, type Output } from '../operator.js';
import { CliError } from '../util.js';
import { locate, NotFoundTarget, parseScan, parseTarget, type Located } from './target.js';
import { walk, type Link } from './walk.js';

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

/** The summary line: `all 7 link(s) verified` or `2 of 7 link(s) broken`, naming unchecked ones. */
export function summaryLine(links: Link[]): string {
  const broken = links.filter((l) => l.ok === false).length;
  const checked = links.filter((l) => l.ok !== null).length;
  const unchecked = links.length - checked;
  const note = unchecked === 0 ? '' : ` (${unchecked} not checkable)`;
  return broken === 0
    ? `all ${checked} link(s) verified${note}`
    : `${broken} of ${checked} link(s) broken${note}`;
}

/** Options of `why`. */
export interface WhyOptions {
  scan?: string;
  json?: boolean;
  result?: string;
  session?: string;
}

/**
 * Runs `world why`.
 * @param stdin reads standard input (target `-`)
 * @returns the exit code: 0 all links hold, 3 any broken (1 is thrown as NotFoundTarget)
 * @throws CliError exit 2 for a bad target or option, exit 1 when nothing is found
 */
export async function why(
  targetText: string | undefined,
  options: WhyOptions,
  env: NodeJS.ProcessEnv,
  io: Output,
  stdin: () => Promise<string>,
): Promise<number> {
  if (targetText === undefined && options.result === undefined)
    throw new CliError(
      'why: give a target (index, head, sha256:<ref>, a2a:<id>, mcp:<id>, rest:<id> or -) or --result FILE',
      2,
    );
  if (targetText !== undefined && options.result !== undefined && targetText !== '-')
    throw new CliError('why: --result takes the place of the target', 2);
  const target =
    options.result !== undefined ? ({ kind: 'result' } as const) : parseTarget(targetText!);
  const scan = parseScan(options.scan);
  const read =
    options.result !== undefined
      ? () =>
          readFile(options.result!, 'utf8').catch((err: Error) =>
            Promise.reject(new CliError(`--result ${options.result}: ${err.message}`, 2)),
          )
      : stdin;
  const reads = new HttpProvenance(
    new GatewayClient(gatewayUrl(env), await readerToken(options.session, env, warner(io))),
  );
  const located = await locate(reads, target, { scan, stdin: read });
  const links = await walk(reads, located);
  if (links === null) throw new NotFoundTarget(`log entry ${located.index} not found`);
  const broken = links.some((l) => l.ok === false);
  if (options.json) {
    io.out(
      JSON.stringify(
        {
          entryIndex: located.index,
          matchedBy: located.matchedBy,
          verified: !broken,
          links: links.map((l) => ({ link: l.name, ok: l.ok, ref: l.ref, detail: l.detail })),
        },
        null,
        2,
      ),
    );
  } else {
    io.out(headingLine(located));
    for (const l of links) io.out(linkLine(l));
    io.out(summaryLine(links));
  }
  return broken ? EXIT_INTEGRITY : 0;
}
