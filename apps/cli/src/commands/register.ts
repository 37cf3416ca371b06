import type { Command } from 'commander';

/** Registers the client verbs (episode, session, tools, call, log, health, why). */
export function registerClientCommands(_program: Command): void {}
