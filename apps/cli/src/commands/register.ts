import { Command, Option } from 'commander';
import { EPISODE_ID, WHY_SCAN_DEFAULT, WHY_SCAN_MAX } from '@world/contracts';
import { call, health, toolsList } from './agent.js';
import { logTail } from './log-tail.js';
import { episodeCreate, sessionList, sessionMint, sessionRevoke, STDIO } from './operator.js';
import { strictUtf8 } from './util.js';
import { proof, saveCheckpoint, verify } from './tlog/tlog-commands.js';
import { why } from './why/why.js';
import { workbench } from './workbench.js';

/** Collects a repeatable option's values. */
function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/**
 * Reads all of standard input as strict UTF-8 (strictUtf8).
 * @throws CliError (exit 2) `standard input: not valid UTF-8 …`
 */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return strictUtf8(Buffer.concat(chunks), 'standard input');
}

const SESSION_HELP =
  'session file (≤ 256 bytes, mode 0600) or the 64-hex token itself; default $WORLD_SESSION';
const READ_SESSION_HELP = `${SESSION_HELP}; else the operator credential`;

/** The environment the client verbs read, help text for `--help`. */
const ENV_HELP = `
Environment:
  WORLD_URL                  the gateway (default http://127.0.0.1:7644)
  WORLD_SESSION              session file or token of the agent verbs
  WORLD_OPERATOR_TOKEN       operator credential, else WORLD_OPERATOR_TOKEN_FILE,
                             else $WORLD_HOME/operator.token (WORLD_HOME default ./.world)`;

/**
 * Registers the client verbs (world-spec §7.3, §7.4): `episode create`,
 * `session mint|revoke|list`, `tools list`, `call`, `log tail`, `health`, `why`. Every verb has
 * `--help`; usage errors exit 2 (main turns Commander's errors and CliError(…, 2) into it).
 */
export function registerClientCommands(program: Command): void {
  program.addHelpText('after', ENV_HELP);
  const env = process.env;
  // A closed pipe (`world log tail | head`) ends the command quietly, like any Unix filter.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
  const exit = (code: number) => {
    process.exitCode = code;
  };

  const episode = program.command('episode').description('operator: manage episodes');
  episode
    .command('create')
    .description('create an episode and its worktree ($WORLD_WORKSPACE_ROOT/<episode>)')
    .argument('<episode>', `episode id: ${EPISODE_ID.source}`)
    .option('--from <dir>', "copy this directory's files into the new worktree")
    .option('--git <repo>', 'a git worktree of this repository')
    .option('--ref <ref>', 'with --git: the commit to check out')
    .action(async (id: string, opts: { from?: string; git?: string; ref?: string }) => {
      await episodeCreate(id, opts, env, STDIO);
    });

  const session = program
    .command('session')
    .description('operator: mint, revoke and list session credentials');
  session
    .command('mint')
    .description(
      'mint a session credential; the token is printed once, or written once to --out at mode 0600',
    )
    .requiredOption('--episode <episode>', 'the episode the session acts in')
    .option(
      '--grant <EFFECT=SCOPE:BUDGET>',
      'a grant (repeatable), e.g. Workspace.Read=worktree:50',
      collect,
    )
    .option('--ttl <seconds>', 'lifetime in whole seconds (default 3600)')
    .option('--out <file>', 'write the token to this new file (mode 0600) instead of stdout')
    .action(async (opts: { episode: string; grant?: string[]; ttl?: string; out?: string }) => {
      await sessionMint({ ...opts, grant: opts.grant ?? [] }, env, STDIO);
    });
  session
    .command('revoke')
    .description(
      'revoke a session credential (its next request is refused; exit 1 when no such credential)',
    )
    .argument('<credential-id>', '64-hex credential id (see `world session list`)')
    .action(async (id: string) => {
      await sessionRevoke(id, env, STDIO);
    });
  session
    .command('list')
    .description('list session credentials (at most 500)')
    .option('--episode <episode>', 'only this episode')
    .option('--json', 'print the rows as JSON')
    .action(async (opts: { episode?: string; json?: boolean }) => {
      await sessionList(opts, env, STDIO);
    });

  const tools = program.command('tools').description('agent: the tools a session may call');
  tools
    .command('list')
    .description('MCP tools/list for the session')
    .option('--session <file|token>', SESSION_HELP)
    .option('--json', 'print the tools array as JSON')
    .action(async (opts: { session?: string; json?: boolean }) => {
      await toolsList(opts, env, STDIO);
    });

  program
    .command('call')
    .description(
      'agent: MCP tools/call; prints the result and its world block (exit 0 committed, 1 host failure or refusal, 3 with --strict when it did not succeed)',
    )
    .argument('<tool>', 'tool name, e.g. ailang-read')
    .option('--arg <key=value>', 'a string argument (repeatable)', collect)
    .option('--arg-json <key=json>', 'a JSON argument (repeatable)', collect)
    .option('--json <object|@file|->', 'all arguments as one JSON object (not with --arg)')
    .option('--json-out', 'print the committed output bytes exactly, plus one newline')
    .option(
      '--strict',
      'exit 3 when the committed result is not a success: ok:false, or an effect denied or failed',
    )
    .option(
      '--task-id <id>',
      'idempotency key: _meta["world/taskId"] (resending returns the committed result)',
    )
    .option('--session <file|token>', SESSION_HELP)
    .action(
      async (
        tool: string,
        opts: {
          arg?: string[];
          argJson?: string[];
          json?: string;
          jsonOut?: boolean;
          strict?: boolean;
          taskId?: string;
          session?: string;
        },
      ) => {
        exit(await call(tool, opts, { env, io: STDIO, stdin: readStdin }));
      },
    );

  const log = program.command('log').description('the append-only log');
  log
    .command('tail')
    .description(
      'one line per entry: #<index> <hash> <writtenBy> <episode> <skill> [<Effect> <status>]',
    )
    .option('--from <index>', 'first entry (default: the last 20)')
    .option('--follow', 'keep printing new entries (reconnects with backoff)')
    .option('--raw', 'print each entry as JSON')
    .option('--session <file|token>', READ_SESSION_HELP)
    .action(async (opts: { from?: string; follow?: boolean; raw?: boolean; session?: string }) => {
      await logTail(opts, env, STDIO);
    });

  program
    .command('health')
    .description('GET /v1/health')
    .action(async () => {
      await health(env, STDIO);
    });

  program
    .command('why')
    .description(
      'walk one invocation and check every link (exit 0 all hold, 3 any broken, 1 not found)',
    )
    .argument(
      '[target]',
      'index | head | sha256:<ref> | a2a:<id> | mcp:<id> | rest:<id> | - (a result object, or its world block, on stdin)',
    )
    .option(
      '--result <file>',
      'a result object (e.g. from `world call --json-out`) instead of stdin',
    )
    .addOption(
      new Option(
        '--scan <n>',
        `accepted for compatibility (1..${WHY_SCAN_MAX}); lookups are indexed`,
      ).default(undefined, String(WHY_SCAN_DEFAULT)),
    )
    .option('--json', 'print the links as JSON')
    .option('--session <file|token>', READ_SESSION_HELP)
    .action(
      async (
        target: string | undefined,
        opts: { scan?: string; json?: boolean; result?: string; session?: string },
      ) => {
        exit(await why(target, opts, env, STDIO, readStdin));
      },
    );

  program
    .command('workbench')
    .description("print a one-time login URL of the workbench (the gateway's web pages)")
    .option('--session <file|token>', READ_SESSION_HELP)
    .option('--open', 'also open the URL in a browser')
    .action(async (opts: { session?: string; open?: boolean }) => {
      await workbench(opts, env, STDIO);
    });

  program
    .command('checkpoint')
    .description("save the log's latest signed checkpoint (C2SP tlog-checkpoint note)")
    .option('--out <file>', 'write it to this new file instead of stdout')
    .option('--session <file|token>', READ_SESSION_HELP)
    .action(async (opts: { out?: string; session?: string }) => {
      await saveCheckpoint(opts, env, STDIO);
    });

  program
    .command('proof')
    .description(
      'write an offline proof bundle of one entry (entry, objects, C2SP tlog-proof) to stdout',
    )
    .argument('<target>', 'index | head | sha256:<ref> | a2a:<id> | mcp:<id> | rest:<id> | -')
    .option('--scan <n>', `accepted for compatibility (1..${WHY_SCAN_MAX}); lookups are indexed`)
    .option('--session <file|token>', READ_SESSION_HELP)
    .action(async (target: string, opts: { scan?: string; session?: string }) => {
      await proof(target, opts, env, STDIO, readStdin);
    });

  program
    .command('verify')
    .description(
      'check the live log against saved checkpoints, or a proof bundle offline (exit 0 ok, 3 any failure)',
    )
    .option('--checkpoint <file>', 'a checkpoint saved earlier (repeatable)', collect)
    .option('--bundle <file>', 'a bundle from `world proof`, verified with no server')
    .option('--key <file|vkey>', "the log's verifier key (default: the published one)")
    .option('--session <file|token>', READ_SESSION_HELP)
    .action(
      async (opts: { checkpoint?: string[]; bundle?: string; key?: string; session?: string }) => {
        exit(await verify(opts, env, STDIO));
      },
    );
}
