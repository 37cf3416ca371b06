import type { FuncDecl, TypeExpr } from './ast.js';

/**
 * Renders written types and signatures back to AILANG syntax: effect error texts
 * (ailang.md §1.3 "Current signature" / "Suggested fix") and `iface` listings.
 */

/**
 * A written type as text; `compact` drops optional spaces, as `ailang iface --compact` prints
 * `(string)->()!{IO}` (world-spec §3.8 example).
 */
export function typeExprText(te: TypeExpr, compact = false): string {
  const comma = compact ? ',' : ', ';
  const go = (t: TypeExpr): string => typeExprText(t, compact);
  switch (te.k) {
    case 'tunit':
      return '()';
    case 'tlist':
      return `[${go(te.elem)}]`;
    case 'ttuple':
      return `(${te.items.map(go).join(comma)})`;
    case 'tname':
      return te.args.length === 0 ? te.name : `${te.name}[${te.args.map(go).join(comma)}]`;
    case 'trecord': {
      const fields = te.fields
        .map((f) => `${f.name}:${compact ? '' : ' '}${go(f.type)}`)
        .join(comma);
      if (te.rest !== null) return `{${fields}${compact ? '|' : ' | '}${te.rest}}`;
      if (te.open) return `{${fields}${fields === '' ? '' : comma}...}`;
      return `{${fields}}`;
    }
    case 'tfun': {
      const arrow = compact ? '->' : ' -> ';
      const row = te.effects ? rowText(te.effects, compact) : '';
      return `(${te.params.map(go).join(comma)})${arrow}${go(te.ret)}${row}`;
    }
  }
}

/** ` ! {IO, FS}` (or `!{IO,FS}` compact); empty for a missing row. */
export function rowText(
  row: { labels: readonly { name: string }[]; vars: readonly string[] } | null,
  compact = false,
): string {
  if (row === null) return '';
  const items = [...row.labels.map((l) => l.name), ...row.vars];
  return compact ? `!{${items.join(',')}}` : ` ! {${items.join(', ')}}`;
}

/** `func name(p: T, …) -> R` without the effect row (`pure func` when declared pure). */
export function signatureText(d: FuncDecl): string {
  const params = d.params.map((p) => `${p.name}: ${typeExprText(p.type)}`).join(', ');
  const tparams = d.tparams.length > 0 ? `[${d.tparams.join(', ')}]` : '';
  return `${d.pure ? 'pure ' : ''}func ${d.name}${tparams}(${params}) -> ${typeExprText(d.ret)}`;
}
