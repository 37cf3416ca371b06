/**
 * `builtins-search` (world-spec §3.6, world-internals §8.2): list the builtin inventory compiled
 * into the tool binary through `Ailang.Discover` (policy-tool op `builtins_list`, text form); a pure
 * finish phase parses and filters it.
 */
import { BUILTINS_SEARCH_MAX_MATCHES } from '@world/contracts';
import {
  closingSentences,
  defineTool,
  finishFailure,
  OK_PROPERTY,
  optionalStringRefusal,
  REFUSED_PROPERTY,
  soleEffectOutput,
  stringField,
  type JsonObject,
} from './common.js';
import type { EffectResult } from './types.js';

const EFFECT = 'Ailang.Discover';

/** One builtin of the inventory, as builtins-search returns it (world-spec §3.6). */
interface BuiltinEntry {
  name: string;
  module: string;
  effect: string;
}

const HEADER = /^Total: (0|[1-9][0-9]*) builtins$/;
/**
 * One inventory line: `name [effect] module`. The binary pads the name (two leading spaces, name
 * left-aligned in 30 columns, ailang.md §1.7), so leading blanks and a run of blanks after the
 * name are accepted; the effect may be empty.
 */
const ENTRY = /^ *(\S+) +\[([^\]]*)\] (\S+)$/;

/**
 * Parses the text inventory of `ailang builtins list` (ailang.md §1.7): a first line
 * `Total: N builtins`, then exactly N `name [effect] module` lines; empty lines (the binary
 * prints one after the header) are skipped. Anything else is a truncated or unparseable inventory,
 * reported as text — never an empty list (world-internals §12 incident 22).
 * @param stdout the handler's stdout
 * @returns the entries in inventory order, or the reason the inventory is unusable
 * @internal exported for builtins-search.spec.ts
 */
export function parseBuiltinsInventory(
  stdout: string,
): { entries: BuiltinEntry[] } | { unusable: string } {
  const lines = stdout.split('\n');
  const header = HEADER.exec(lines[0] ?? '');
  if (header === null) return { unusable: 'builtins_list returned no inventory' };
  const total = Number(header[1]);
  const entries: BuiltinEntry[] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line === '') continue;
    const entry = ENTRY.exec(line);
    if (entry === null) {
      return {
        unusable: `builtins_list inventory line ${i + 1} is unparseable: ${JSON.stringify(line)}`,
      };
    }
    entries.push({
      name: entry[1] as string,
      module: entry[3] as string,
      effect: entry[2] as string,
    });
  }
  if (entries.length !== total) {
    return {
      unusable: `builtins_list inventory is truncated: its header says ${total} builtins but ${entries.length} were listed`,
    };
  }
  return { entries };
}

/**
 * The search filter (world-spec §3.6): keeps entries whose module contains `module` and where
 * `query` is a substring of name, module or effect, both case-insensitive; an absent or empty
 * filter matches everything; with a non-empty query at most BUILTINS_SEARCH_MAX_MATCHES entries,
 * in inventory order.
 * @internal exported for builtins-search.spec.ts
 */
export function filterBuiltins(
  entries: readonly BuiltinEntry[],
  query: string,
  module: string,
): BuiltinEntry[] {
  const q = query.toLowerCase();
  const m = module.toLowerCase();
  const hits = entries.filter((e) => {
    const name = e.name.toLowerCase();
    const mod = e.module.toLowerCase();
    const effect = e.effect.toLowerCase();
    return (
      (m === '' || mod.includes(m)) &&
      (q === '' || name.includes(q) || mod.includes(q) || effect.includes(q))
    );
  });
  return q === '' ? hits : hits.slice(0, BUILTINS_SEARCH_MAX_MATCHES);
}

/**
 * The finish phase (world-spec §3.6, world-internals §8.2): the one Ailang.Discover result's
 * handler output `{ok, argv, exit_code, stdout, stderr}` becomes `{count, matches:[{name, module,
 * effect}]}` with `count` = matches returned. An unusable inventory gives `{ok:false, status:"ok",
 * refused}`: the handler's own refusal (`{ok:false, refused}`) when it gave one, else the parse
 * failure followed by `; stderr: <stderr>`. Guard failures (denied/failed effect, malformed results) are
 * soleEffectOutput's.
 * @param args the caller's arguments (query, module; non-strings count as absent)
 * @param results the effect results, exactly one expected
 * @internal exported for builtins-search.spec.ts
 */
export function finishBuiltinsSearch(args: unknown, results: EffectResult[]): JsonObject {
  const sole = soleEffectOutput(EFFECT, results);
  if ('failure' in sole) return sole.failure;
  const inventory = parseBuiltinsInventory(stringField(sole.output, 'stdout'));
  if ('unusable' in inventory) {
    const refused = stringField(sole.output, 'refused');
    return finishFailure(
      'ok',
      refused !== ''
        ? refused
        : `${inventory.unusable}; stderr: ${stringField(sole.output, 'stderr')}`,
    );
  }
  const matches = filterBuiltins(
    inventory.entries,
    stringField(args, 'query'),
    stringField(args, 'module'),
  );
  return {
    count: matches.length,
    matches: matches.map((e) => ({ name: e.name, module: e.module, effect: e.effect })),
  };
}

/**
 * The builtins-search descriptor and transition (world-spec §3.0 table, §3.6): one
 * `Ailang.Discover` with payload `{"op":"builtins_list"}` (text form, no flags: the JSON
 * inventory exceeds policy-tool's 64 KiB stdout cap) and the finish phase finishBuiltinsSearch,
 * which filters. Refusals: steps 4-5 of §3.0, then `query`, `module` not a string.
 */
export const builtinsSearch = defineTool({
  id: 'builtins-search',
  title: 'Search AILANG builtins',
  description:
    'Search the builtin inventory compiled into the AILANG tool binary instead of guessing builtin ' +
    "names. query is a case-insensitive substring of a builtin's name, module or effect (at most " +
    `${BUILTINS_SEARCH_MAX_MATCHES} matches with a query); module keeps builtins whose module ` +
    "contains it (e.g. 'std/fs'); omit both for the full list. Returns {count, matches}, each match " +
    '{name, module, effect}, count being the number returned; signatures and descriptions are not ' +
    'part of the inventory (use ailang-cli builtins_show or examples-search for usage). A truncated ' +
    'or unparseable inventory is refused as {ok:false, status, refused}, never answered with an ' +
    'empty list. ' +
    closingSentences(EFFECT),
  effect: EFFECT,
  arguments: {
    query: {
      type: 'string',
      description: 'Case-insensitive substring of name, module or effect',
    },
    module: { type: 'string', description: 'Module filter, e.g. std/fs' },
  },
  required: [],
  output: {
    count: { type: 'integer', description: 'Number of matches returned' },
    matches: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          module: { type: 'string' },
          effect: { type: 'string' },
        },
      },
    },
    status: { type: 'string', description: "The effect's status when no inventory was produced" },
    ok: OK_PROPERTY,
    refused: REFUSED_PROPERTY,
  },
  refusal: (a) => optionalStringRefusal(a, 'query') ?? optionalStringRefusal(a, 'module'),
  payload: () => ({ op: 'builtins_list' }),
  finish: finishBuiltinsSearch,
  sourceUrl: import.meta.url,
});
