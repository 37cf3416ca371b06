import type { EffectRow, TypeExpr } from '../ast.js';
import { CompileError, type Pos } from '../diagnostics.js';
import { TokenParser } from './tokens.js';

/** Effect labels the language knows (ailang.md §3); other capitalised names are PAR005. */
const EFFECT_LABELS = new Set([
  'IO',
  'FS',
  'Net',
  'Clock',
  'Rand',
  'Env',
  'AI',
  'Process',
  'Stream',
  'SharedMem',
  'SharedIndex',
  'DB',
  'Trace',
  'Async',
  'DOM',
  'Msg',
  'Debug',
  'Secret',
]);

/** Built-in type names written in lowercase. */
export const BASE_TYPES = new Set(['int', 'float', 'string', 'bool', 'unit', 'bytes']);

/**
 * Types and effect rows (ailang.md §2.1 "Types", §2.2 `type` and `effrow`): base types, lists,
 * tuples, records with rows, named types with arguments, and function types with their rows.
 */
export class TypeParser extends TokenParser {
  type(): TypeExpr {
    const t = this.typeNoArrowRow();
    return t;
  }

  /** A type; a function type's `! {…}` row is part of it (right-nested arrows). */
  protected typeNoArrowRow(): TypeExpr {
    const pos = this.tok.pos;
    let params: TypeExpr[] | null = null;
    let atom: TypeExpr;
    // `func(int, string) -> bool ! {IO}`: the function-type spelling of the anonymous-function
    // syntax, the same type as `(int, string) -> bool ! {IO}`.
    const funcKeyword = this.is('func') && this.peek().kind === 'op' && this.peek().text === '(';
    if (funcKeyword) this.next();
    if (this.is('(')) {
      this.next();
      const items: TypeExpr[] = [];
      this.withNl(false, () => {
        if (!this.is(')')) {
          do items.push(this.type());
          while (this.accept(','));
        }
        this.expect(')', 'to close the type');
      });
      if (this.is('->')) {
        params = items;
        atom = { k: 'tunit', pos };
      } else if (items.length === 0) {
        atom = { k: 'tunit', pos };
      } else if (items.length === 1) {
        atom = items[0]!;
      } else {
        atom = { k: 'ttuple', items, pos };
      }
    } else {
      atom = this.typeAtom();
    }
    if (funcKeyword && !this.is('->')) {
      throw this.unexpected(
        '"->" and the result type of the func(…) type',
        'write func(int) -> int',
      );
    }
    if (this.is('->')) {
      this.next();
      const ret = this.typeNoArrowRow();
      let effects: EffectRow | null = null;
      // `a -> b ! {e}`: a row after the innermost result belongs to that arrow, unless the
      // result was itself a function type that already took it.
      if (ret.k !== 'tfun' && this.is('!') && this.peek().text === '{') {
        this.next();
        effects = this.effectRow();
      }
      return { k: 'tfun', params: params ?? [atom], ret, effects, pos };
    }
    return atom;
  }

  protected typeAtom(): TypeExpr {
    const t = this.tok;
    const pos = t.pos;
    if (this.accept('[')) {
      const elem = this.type();
      this.expect(']', 'to close the list type');
      return { k: 'tlist', elem, pos };
    }
    if (this.is('{')) {
      this.next();
      const fields: { name: string; type: TypeExpr }[] = [];
      let rest: string | null = null;
      let open = false;
      this.withNl(false, () => {
        while (!this.is('}')) {
          if (this.accept('...')) {
            open = true;
            break;
          }
          const f = this.ident('a field name');
          this.expect(':', `after field "${f.text}"`);
          fields.push({ name: f.text, type: this.type() });
          if (this.accept('|')) {
            rest = this.ident('a row variable').text;
            open = true;
            break;
          }
          if (!this.accept(',')) break;
        }
        this.expect('}', 'to close the record type');
      });
      return { k: 'trecord', fields, rest, open, pos };
    }
    if (t.kind === 'ident') {
      this.next();
      if (t.text === 'unit') return { k: 'tunit', pos };
      // `list[string]`: the lowercase spelling the standard library's own signatures use.
      if (t.text === 'list' && this.is('[')) {
        this.next();
        const elem = this.type();
        this.expect(']', 'to close the list type');
        return { k: 'tlist', elem, pos };
      }
      return { k: 'tname', name: t.text, args: [], pos };
    }
    if (t.kind === 'upper') {
      this.next();
      const args: TypeExpr[] = [];
      if (this.accept('[')) {
        do args.push(this.type());
        while (this.accept(','));
        this.expect(']', 'to close the type arguments');
      }
      // `List[T]` stays a named type: the checker decides whether it is the builtin list or a
      // type the module declares under that name (a user type shadows the builtin one).
      return { k: 'tname', name: t.text, args, pos };
    }
    throw this.unexpected('a type');
  }

  protected effectRow(): EffectRow {
    const pos = this.expect('{', 'to open the effect row').pos;
    const labels: EffectRow['labels'] = [];
    const vars: string[] = [];
    let budgeted: Pos | null = null;
    if (!this.is('}')) {
      do {
        const t = this.tok;
        if (t.kind === 'upper') {
          this.next();
          if (!EFFECT_LABELS.has(t.text)) {
            throw new CompileError(
              'PAR005',
              `unknown effect "${t.text}"`,
              t.pos,
              `known effects: ${[...EFFECT_LABELS].join(', ')}`,
            );
          }
          labels.push({ name: t.text, pos: t.pos });
          while (this.is('@')) {
            budgeted ??= this.tok.pos;
            this.next();
            this.ident('limit or min');
            this.expect('=');
            if (this.tok.kind !== 'int') throw this.unexpected('an integer budget');
            this.next();
          }
        } else if (t.kind === 'ident') {
          this.next();
          vars.push(t.text);
        } else {
          throw this.unexpected('an effect name');
        }
      } while (this.accept(','));
    }
    this.expect('}', 'to close the effect row');
    return { labels, vars, budgeted, pos };
  }
}
