import type { TypeExpr } from '../lang/ast.js';
import { funcDecls, checkProgram, moduleFile, type SourceReader } from '../lang/program.js';
import { parseTypeText } from '../lang/parser.js';
import { typeExprText } from '../lang/print.js';
import { compareStrings } from '../runtime/values.js';
import { STD_MODULES, STD_TYPES } from '../stdlib/registry.js';
import type { CommandOutput } from './check-output.js';

/**
 * `ailang iface <module> [--compact]` (ailang.md §1.7): a module's exported types and functions,
 * as JSON `{module, types:[{name,ctors,alias}], funcs:[{name,type}]}` or one
 * `name : type ! {effects}` line per export (world-spec §3.8 example
 * `module std/io\neprintln : (string)->()!{IO}`).
 */

interface Iface {
  module: string;
  types: { name: string; ctors: string[]; alias: string }[];
  funcs: { name: string; type: TypeExpr }[];
}

function stdIface(module: string): Iface | null {
  const exports = STD_MODULES.get(module);
  if (exports === undefined) return null;
  const funcs = [...exports].map(([name, b]) => ({ name, type: parseTypeText(b.type).type }));
  const types = STD_TYPES.filter((t) => t.module === module).map((t) => ({
    name: t.params.length > 0 ? `${t.name}[${t.params.join(', ')}]` : t.name,
    ctors: (t.ctors ?? []).map((c) =>
      c.fields.length > 0 ? `${c.name}(${c.fields.join(', ')})` : c.name,
    ),
    alias: t.alias ?? '',
  }));
  return { module, types, funcs };
}

function userIface(module: string, reader: SourceReader): Iface | { error: string } {
  const r = checkProgram(moduleFile(module), reader);
  if (r.phase === 'read')
    return { error: `unknown module ${module}: ${r.diagnostics[0]!.message}` };
  if (r.phase !== 'ok') return { error: r.diagnostics.map((d) => d.message).join('\n') };
  const m = r.modules[r.modules.length - 1]!;
  const funcs = funcDecls(m.ast)
    .filter((d) => d.exported)
    .map((d) => ({
      name: d.name,
      type: {
        k: 'tfun',
        params: d.params.map((p) => p.type),
        ret: d.ret,
        effects: d.effects,
        pos: d.pos,
      } as TypeExpr,
    }));
  const types = m.ast.decls
    .filter((d) => d.kind === 'type' && d.exported)
    .map((d) => {
      const t = d as Extract<typeof d, { kind: 'type' }>;
      return {
        name: t.tparams.length > 0 ? `${t.name}[${t.tparams.join(', ')}]` : t.name,
        ctors: (t.ctors ?? []).map((c) =>
          c.fields.length > 0
            ? `${c.name}(${c.fields.map((f) => typeExprText(f)).join(', ')})`
            : c.name,
        ),
        alias: t.alias ? typeExprText(t.alias) : '',
      };
    });
  return { module, types, funcs };
}

/** Runs `iface` for a std module or a module of the worktree. */
export function ifaceCommand(
  module: string,
  compact: boolean,
  reader: SourceReader,
): CommandOutput {
  const found = module.startsWith('std/') ? stdIface(module) : userIface(module, reader);
  if (found === null)
    return { exitCode: 1, stdout: '', stderr: `Error: unknown module ${module}\n` };
  if ('error' in found) return { exitCode: 1, stdout: '', stderr: `Error: ${found.error}\n` };
  const funcs = [...found.funcs].sort((a, b) => compareStrings(a.name, b.name));
  if (compact) {
    const lines = [`module ${found.module}`];
    for (const t of found.types)
      lines.push(`type ${t.name} = ${t.alias !== '' ? t.alias : t.ctors.join(' | ')}`);
    for (const f of funcs) lines.push(`${f.name} : ${typeExprText(f.type, true)}`);
    return { exitCode: 0, stdout: `${lines.join('\n')}\n`, stderr: '' };
  }
  const json = {
    module: found.module,
    types: found.types,
    funcs: funcs.map((f) => ({ name: f.name, type: typeExprText(f.type) })),
  };
  return { exitCode: 0, stdout: `${JSON.stringify(json)}\n`, stderr: '' };
}
