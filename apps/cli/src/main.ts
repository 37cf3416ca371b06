#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { SHUTDOWN_DRAIN_MS } from '@world/contracts';
import { CliError } from './commands/util.js';
import { registerClientCommands } from './commands/register.js';

// `start` and `up` load every service (Nest, PostgreSQL, the toolchain); the client verbs need none
// of it, so those two are imported only when they run.

/** The `world` command (apps/cli). */
function buildProgram(): Command {
  const program = new Command('world')
    .description('World: a provenance-first tool host for AI agents')
    .version('0.1.0')
    .showHelpAfterError()
    .exitOverride();

  program
    .command('start')
    .description(
      'run the whole of World in this process (embedded PostgreSQL unless NATS_URL and DATABASE_URL are set)',
    )
    .option('--bind <host:port>', 'gateway address', process.env.WORLD_BIND ?? '127.0.0.1:7644')
    .option('--public-reads', 'serve GET /v1/* without a session (or WORLD_PUBLIC_READS=1)', false)
    .action(async (opts: { bind: string; publicReads: boolean }) => {
      const { startCommand } = await import('./commands/start.js');
      const { closeOnSignal, startTelemetry } = await import('@world/runtime');
      // One process, four services: one resource (OTEL_SERVICE_NAME or world); spans carry world.service.
      startTelemetry('world start', 'world');
      const system = await startCommand({ bind: opts.bind, publicReads: opts.publicReads });
      closeOnSignal(
        [{ service: 'world', replica: 'start', close: () => system.close() }],
        SHUTDOWN_DRAIN_MS,
      );
    });

  program
    .command('up')
    .description('start each service as its own process against NATS_URL and DATABASE_URL')
    .option(
      '--replicas <list>',
      'processes per service, e.g. gateway=2,planner=2,broker=3,ledger=2',
    )
    .option('--quiet', "do not echo the services' log lines")
    .option('--no-restart', 'do not restart a replica that exits on its own (default: restart it)')
    .action(async (opts: { replicas?: string; quiet?: boolean; restart: boolean }) => {
      const { upCommand } = await import('./commands/up.js');
      await upCommand(opts);
    });

  registerClientCommands(program);
  return program;
}

async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? 0 : 2);
    if (err instanceof CliError) {
      process.stderr.write(`world: ${err.message}\n`);
      process.exit(err.exitCode);
    }
    // A ConfigError (@world/runtime, loaded only by start and up) already names its source.
    if (err instanceof Error && err.name === 'ConfigError') {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`world: ${(err as Error)?.message ?? String(err)}\n`);
    process.exit(1);
  }
}

void main(process.argv);
