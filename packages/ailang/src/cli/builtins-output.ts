import { compareStrings } from '../runtime/values.js';
import {
  RAW_BUILTINS,
  effectOf,
  exportingModuleOf,
  signatureOf,
  type BuiltinSpec,
} from '../stdlib/registry.js';

/**
 * `ailang builtins list` and `builtins show` for the embedded registry's raw builtins (ailang.md
 * §1.7; world-spec §3.6): the text inventory is `Total: N builtins`, a blank line, then one
 * `  name [effect] module` line per builtin (two-space indent, name padded to 30, effect lowercase
 * or `pure`), sorted by name, as the real `listAllBuiltins` prints it; `--json` is one line
 * `{"count":N,"builtins":[…]}`. Every listed name is callable from any module (stdlib/registry.ts).
 */

// `%-30s` of the real listing.
const NAME_COLUMN = 30;

/** Filters of `builtins list`: exact module, case-insensitive substring over name/module/doc. */
export interface BuiltinsFilter {
  module?: string;
  query?: string;
}

/** The registry sorted by name, filtered. */
export function listBuiltins(filter: BuiltinsFilter = {}): BuiltinSpec[] {
  const q = filter.query?.toLowerCase();
  return [...RAW_BUILTINS]
    .filter((b) => filter.module === undefined || b.module === filter.module)
    .filter(
      (b) => q === undefined || [b.name, b.module, b.doc].some((s) => s.toLowerCase().includes(q)),
    )
    .sort((a, b) => compareStrings(a.name, b.name));
}

/** The effect column: `io`, `fs`, `env` or `pure`. */
function effectLabel(b: BuiltinSpec): string {
  return effectOf(b)?.toLowerCase() ?? 'pure';
}

/** The text inventory. */
export function builtinsText(items: readonly BuiltinSpec[]): string {
  const lines = items.map(
    (b) => `  ${b.name.padEnd(NAME_COLUMN)} [${effectLabel(b)}] ${b.module}\n`,
  );
  return `Total: ${items.length} builtins\n\n${lines.join('')}`;
}

/** One builtin as the JSON inventory lists it. */
function builtinJson(b: BuiltinSpec): Record<string, unknown> {
  const effect = effectOf(b);
  return {
    name: b.name,
    module: b.module,
    signature: signatureOf(b),
    is_pure: effect === null,
    effect: effect ?? '',
    num_args: b.params.length,
    description: b.doc,
  };
}

/** The JSON inventory, one line. */
export function builtinsJson(items: readonly BuiltinSpec[]): string {
  return `${JSON.stringify({ count: items.length, builtins: items.map(builtinJson) })}\n`;
}

/** Finds a builtin by registry name or by its public name. */
export function findBuiltin(name: string): BuiltinSpec[] {
  const exact = RAW_BUILTINS.filter((b) => b.name === name);
  if (exact.length > 0) return exact;
  return RAW_BUILTINS.filter((b) => b.export === name || b.name === `_${name}`);
}

/** `builtins show <name>` text. */
export function builtinShowText(b: BuiltinSpec): string {
  return [
    `${b.name} (${b.module})`,
    `  export:    ${b.export === null || b.module === 'prelude' ? `${b.name} (in scope in every module)` : `import ${exportingModuleOf(b)} (${b.export})`}`,
    `  signature: ${signatureOf(b)}`,
    `  effect:    ${effectOf(b) ?? 'pure'}`,
    `  params:    ${b.params.length === 0 ? '(none)' : b.params.join(', ')}`,
    `  ${b.doc}`,
    '',
  ].join('\n');
}
