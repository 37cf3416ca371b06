/**
 * `world why <index | head | sha256:REF | a2a:ID | mcp:ID | rest:ID | ->` (world-spec §7.3,
 * §9): locates one invocation's entry, walks every link and prints one ✓ or ✗ line per link
 * and a summary. Exit 0 when every link holds, 3 when any is broken, 1 when nothing is found.
 */
import { readFile } from 'node:fs/promises';
import { gatewayUrl, readerToken } from '../client/credentials.js';
import { GatewayClient } from '../client/http.js';
import { HttpProvenance } from '../client/provenance.js';
import { EXIT_INTEGRITY } from '../agent.js';
import { warner, type Output } from '../operator.js';
import { CliError } from '../util.js';
import { LogReads } from '../tlog/log-reads.js';
import {
  headingLine,
  linkLine,
  locate,
  NotFoundTarget,
  parseScan,
  parseTarget,
  summaryLine,
  walkWithLog,
  WhyError,
} from '@world/why';

/** Options of `why`. */
interface WhyOptions {
  scan?: string;
  json?: boolean;
  result?: string;
  session?: string;
}

/**
 * Runs `world why` with runWhy's arguments: the target text, the options, the environment, the
 * output, and a reader of standard input (target `-`); maps the walk's errors to CliError.
 * @returns the exit code: 0 all links hold, 3 any broken (1 is thrown as NotFoundTarget)
 * @throws CliError exit 2 for a bad target or option, exit 1 when nothing is found
 */
export async function why(...args: Parameters<typeof runWhy>): Promise<number> {
  try {
    return await runWhy(...args);
  } catch (err) {
    // The walk's own errors carry the exit code world-spec §7.3 gives them.
    if (err instanceof WhyError) throw new CliError(err.message, err.exitCode);
    throw err;
  }
}

async function runWhy(
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
  parseScan(options.scan);
  const read =
    options.result !== undefined
      ? () =>
          readFile(options.result!, 'utf8').catch((err: Error) =>
            Promise.reject(new CliError(`--result ${options.result}: ${err.message}`, 2)),
          )
      : stdin;
  const gateway = new GatewayClient(
    gatewayUrl(env),
    await readerToken(options.session, env, warner(io)),
  );
  const reads = new HttpProvenance(gateway);
  const located = await locate(reads, target, { stdin: read });
  // The walk ends with the inclusion link (RFC 9162 §2.1.3), as the workbench's Why page's does.
  const links = await walkWithLog(reads, new LogReads(gateway), located);
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
