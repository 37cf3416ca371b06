import type {
  Arm,
  BinOp,
  CtorDecl,
  Decl,
  EffectRow,
  Expr,
  FuncDecl,
  Import,
  Module,
  Param,
  Pattern,
  TypeDecl,
  TypeExpr,
} from './ast.js';
import { CompileError, type Pos } from './diagnostics.js';
import { lex, type Token } from './lexer.js';

/**
 * Recursive-descent parser of the embedded AILANG subset (grammar sketch of ailang.md §2.2).
 * Newlines separate block statements and match arms (ailang.md §2.1 "Newer versions accept
 * newlines instead of `;`"); inside parentheses, brackets and argument lists they are
 * insignificant. Errors are CompileError PAR0xx with the position of the offending token.
 */

/** Effect labels the language knows (ailang.md §3); other capitalised names are PAR005. */
export const EFFECT_LABELS = new Set([
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

// Binary operator precedence, loosest first; `::`, `++` and `**` associate to the right.
const PRECEDENCE: { ops: string[]; right: boolean }[] = [
  { ops: ['||', 'or'], right: false },
  { ops: ['&&', 'and'], right: false },
  { ops: ['==', '!='], right: false },
  { ops: ['<', '>', '<=', '>='], right: false },
  { ops: ['::'], right: true },
  { ops: ['++'], right: true },
  { ops: ['+', '-'], right: false },
  { ops: ['*', '/', '%'], right: false },
  { ops: ['**'], right: true },
];

const WORD_OPS: Record<string, BinOp> = { or: '||', and: '&&' };

/**
 * Parses a whole source file.
 * @throws CompileError (PAR0xx, MOD001) at the first syntax error
 */
export function parseModule(source: string): Module {
  const p = new Parser(lex(source));
  return p.module();
}

/**
 * Parses a type written in AILANG syntax, e.g. `((a) -> b ! {e}, [a]) -> [b] ! {e}` — the
 * signatures of the builtins registry are written this way.
 * @throws CompileError on a malformed type
 */
export function parseTypeText(text: string): { type: TypeExpr; effects: EffectRow | null } {
  const p = new Parser(lex(text));
  const type = p.type();
  p.expectEnd();
  if (type.k === 'tfun') {
    return { type, effects: type.effects };
  }
  return { type, effects: null };
}

class Parser {
  private i = 0;
  // true inside blocks and match bodies, where a newline may end a statement or an arm
  private nlSensitive: boolean[] = [false];

  constructor(private readonly tokens: Token[]) {}

  // ------------------------------------------------------------------ token helpers

  private get tok(): Token {
    return this.tokens[this.i]!;
  }

  private peek(n = 1): Token {
    return this.tokens[Math.min(this.i + n, this.tokens.length - 1)]!;
  }

  private next(): Token {
    const t = this.tok;
    if (t.kind !== 'eof') this.i++;
    return t;
  }

  private is(text: string): boolean {
    const t = this.tok;
    return (t.kind === 'op' || t.kind === 'keyword') && t.text === text;
  }

  private accept(text: string): boolean {
    if (this.is(text)) {
      this.next();
      return true;
    }
    return false;
  }

  private expect(text: string, context?: string): Token {
    if (this.is(text)) return this.next();
    throw this.unexpected(`"${text}"${context ? ` ${context}` : ''}`);
  }

  private unexpected(expected: string, suggestion?: string): CompileError {
    const t = this.tok;
    const found = t.kind === 'eof' ? 'end of file' : `"${t.text}"`;
    return new CompileError(
      'PAR001',
      `unexpected ${found}: expected ${expected}`,
      t.pos,
      suggestion,
    );
  }

  private ident(what = 'a name'): Token {
    const t = this.tok;
    if (t.kind === 'ident') return this.next();
    if (t.kind === 'keyword') {
      throw new CompileError(
        'PAR006',
        `"${t.text}" is a reserved word and cannot be used as ${what}`,
        t.pos,
      );
    }
    throw this.unexpected(what);
  }

  private upper(what: string): Token {
    if (this.tok.kind === 'upper') return this.next();
    throw this.unexpected(what);
  }

  private withNl<T>(sensitive: boolean, f: () => T): T {
    this.nlSensitive.push(sensitive);
    try {
      return f();
    } finally {
      this.nlSensitive.pop();
    }
  }

  private get newlineEnds(): boolean {
    return this.nlSensitive[this.nlSensitive.length - 1]! && this.tok.nl;
  }

  expectEnd(): void {
    if (this.tok.kind !== 'eof') throw this.unexpected('end of input');
  }

  // ------------------------------------------------------------------ module level

  module(): Module {
    if (!this.is('module')) {
      throw new CompileError(
        'MOD001',
        'missing module header: a file must start with "module <path>"',
        this.tok.pos,
        'add "module <path>" as the first line, where <path> is the file path without .ail',
      );
    }
    this.next();
    const namePos = this.tok.pos;
    const name = this.modulePath();
    const imports: Import[] = [];
    while (this.is('import')) imports.push(this.importDecl());
    const decls: Decl[] = [];
    while (this.tok.kind !== 'eof') decls.push(this.decl());
    return { name, namePos, imports, decls };
  }

  private modulePath(): string {
    const parts: string[] = [];
    do {
      const t = this.tok;
      if (t.kind !== 'ident' && t.kind !== 'upper') throw this.unexpected('a module path segment');
      parts.push(this.next().text);
    } while (this.accept('/'));
    return parts.join('/');
  }

  private importDecl(): Import {
    const pos = this.next().pos;
    const path = this.modulePath();
    let names: Import['names'] = null;
    if (this.accept('(')) {
      names = [];
      if (!this.is(')')) {
        do {
          const t = this.tok;
          if (t.kind !== 'ident' && t.kind !== 'upper') throw this.unexpected('an imported name');
          this.next();
          names.push({ name: t.text, pos: t.pos });
        } while (this.accept(','));
      }
      this.expect(')', 'to close the import list');
    }
    let alias: string | null = null;
    if (this.accept('as')) {
      const t = this.tok;
      if (t.kind !== 'ident' && t.kind !== 'upper') throw this.unexpected('an alias name');
      alias = this.next().text;
    }
    return { path, names, alias, pos };
  }

  private decl(): Decl {
    const exported = this.accept('export');
    if (this.is('type')) return this.typeDecl(exported);
    const pure = this.accept('pure');
    if (this.is('func')) return this.funcDecl(exported, pure);
    if (this.is('let')) {
      throw new CompileError(
        'PAR007',
        'top-level let bindings are not supported by the embedded subset',
        this.tok.pos,
        'declare a zero-argument function instead: func name() -> T = …',
      );
    }
    throw this.unexpected('a declaration ("func", "pure func", "type" or "export")');
  }

  private funcDecl(exported: boolean, pure: boolean): FuncDecl {
    this.expect('func');
    const nameTok = this.ident('a function name');
    const tparams = this.typeParams();
    this.expect('(', 'to open the parameter list');
    const params: FuncDecl['params'] = [];
    this.withNl(false, () => {
      if (!this.is(')')) {
        do {
          const p = this.ident('a parameter name');
          this.expect(':', `after parameter "${p.text}" (parameters are declared name: Type)`);
          params.push({ name: p.text, type: this.type(), pos: p.pos });
        } while (this.accept(','));
      }
      this.expect(')', 'to close the parameter list');
    });
    if (!this.is('->')) {
      throw this.unexpected(
        '"->" and the return type',
        `declare the return type: func ${nameTok.text}(…) -> T`,
      );
    }
    this.next();
    const ret = this.typeNoArrowRow();
    let effects: EffectRow | null = null;
    if (this.accept('!')) effects = this.effectRow();
    this.skipContracts();
    let body: Expr;
    if (this.accept('=')) {
      body = this.withNl(false, () => this.expr());
    } else if (this.is('{')) {
      body = this.block();
    } else {
      throw this.unexpected('"=" or "{" to start the function body');
    }
    return {
      kind: 'func',
      name: nameTok.text,
      exported,
      pure,
      tparams,
      params,
      ret,
      effects,
      body,
      pos: nameTok.pos,
    };
  }

  /** `tests [...]`, `requires {...}`, `ensures {...}` are parsed and ignored (ailang.md §5.4). */
  private skipContracts(): void {
    while (
      this.tok.kind === 'keyword' &&
      ['tests', 'requires', 'ensures'].includes(this.tok.text)
    ) {
      this.next();
      const open = this.tok.text;
      const close = open === '[' ? ']' : open === '{' ? '}' : null;
      if (close === null) throw this.unexpected('"[" or "{"');
      let depth = 0;
      do {
        const t = this.next();
        if (t.kind === 'eof') throw this.unexpected(`"${close}"`);
        if (t.kind === 'op' && (t.text === '[' || t.text === '{' || t.text === '(')) depth++;
        if (t.kind === 'op' && (t.text === ']' || t.text === '}' || t.text === ')')) depth--;
      } while (depth > 0);
    }
  }

  private typeParams(): string[] {
    const out: string[] = [];
    if (this.accept('[')) {
      do out.push(this.ident('a type variable').text);
      while (this.accept(','));
      this.expect(']', 'to close the type parameters');
    }
    return out;
  }

  private typeDecl(exported: boolean): TypeDecl {
    this.expect('type');
    const nameTok = this.upper('a type name (capitalised)');
    const tparams = this.typeParams();
    this.expect('=', `after "type ${nameTok.text}"`);
    const t = this.tok;
    const isAdt =
      this.is('|') ||
      (t.kind === 'upper' &&
        !(this.peek().kind === 'op' && (this.peek().text === '[' || this.peek().text === '.')));
    let decl: TypeDecl;
    if (isAdt) {
      this.accept('|');
      const ctors: CtorDecl[] = [];
      do {
        const c = this.upper('a constructor name (capitalised)');
        const fields: TypeExpr[] = [];
        if (this.accept('(')) {
          if (!this.is(')')) {
            do fields.push(this.type());
            while (this.accept(','));
          }
          this.expect(')', `to close constructor ${c.text}`);
        }
        ctors.push({ name: c.text, fields, pos: c.pos });
      } while (this.accept('|'));
      decl = {
        kind: 'type',
        name: nameTok.text,
        exported,
        tparams,
        ctors,
        alias: null,
        pos: nameTok.pos,
      };
    } else {
      decl = {
        kind: 'type',
        name: nameTok.text,
        exported,
        tparams,
        ctors: null,
        alias: this.type(),
        pos: nameTok.pos,
      };
    }
    if (this.accept('deriving')) {
      this.expect('(');
      do this.upper('a class name');
      while (this.accept(','));
      this.expect(')');
    }
    return decl;
  }

  // ------------------------------------------------------------------ types and effects

  type(): TypeExpr {
    const t = this.typeNoArrowRow();
    return t;
  }

  /** A type; a function type's `! {…}` row is part of it (right-nested arrows). */
  private typeNoArrowRow(): TypeExpr {
    const pos = this.tok.pos;
    let params: TypeExpr[] | null = null;
    let atom: TypeExpr;
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

  private typeAtom(): TypeExpr {
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
      if (t.text === 'List' && args.length === 1) return { k: 'tlist', elem: args[0]!, pos };
      return { k: 'tname', name: t.text, args, pos };
    }
    throw this.unexpected('a type');
  }

  private effectRow(): EffectRow {
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

  // ------------------------------------------------------------------ expressions

  expr(): Expr {
    return this.binary(0);
  }

  private binary(level: number): Expr {
    if (level >= PRECEDENCE.length) return this.unary();
    const { ops, right } = PRECEDENCE[level]!;
    let left = this.binary(level + 1);
    while (true) {
      const t = this.tok;
      const isOp = (t.kind === 'op' || t.kind === 'keyword') && ops.includes(t.text);
      if (!isOp) return left;
      // A line that starts with "-" is a new statement, not a subtraction.
      if (t.text === '-' && this.newlineEnds) return left;
      this.next();
      const op = (WORD_OPS[t.text] ?? t.text) as BinOp;
      const rhs = right ? this.binary(level) : this.binary(level + 1);
      left = { k: 'binop', op, left, right: rhs, pos: t.pos };
      if (right) return left;
    }
  }

  private unary(): Expr {
    const t = this.tok;
    if (this.is('-')) {
      this.next();
      const operand = this.unary();
      if (operand.k === 'int') return { ...operand, value: -operand.value, pos: t.pos };
      if (operand.k === 'float') return { ...operand, value: -operand.value, pos: t.pos };
      return { k: 'unop', op: '-', operand, pos: t.pos };
    }
    if (this.is('!') || this.is('not')) {
      this.next();
      return { k: 'unop', op: '!', operand: this.unary(), pos: t.pos };
    }
    return this.postfix();
  }

  private postfix(): Expr {
    let e = this.primary();
    while (true) {
      if (this.is('(') && !this.newlineEnds) {
        const pos = this.next().pos;
        const args: Expr[] = [];
        this.withNl(false, () => {
          if (!this.is(')')) {
            do {
              if (this.is(')')) break;
              args.push(this.expr());
            } while (this.accept(','));
          }
          this.expect(')', 'to close the argument list');
        });
        e = {
          k: 'call',
          fn: e,
          args,
          pos: e.k === 'var' || e.k === 'ctor' || e.k === 'qvar' ? e.pos : pos,
        };
        continue;
      }
      if (this.is('.') && this.peek().kind === 'ident') {
        this.next();
        const f = this.next();
        e = { k: 'field', target: e, name: f.text, pos: f.pos };
        continue;
      }
      return e;
    }
  }

  private primary(): Expr {
    const t = this.tok;
    const pos = t.pos;
    switch (t.kind) {
      case 'int': {
        this.next();
        return { k: 'int', value: t.int!, pos };
      }
      case 'float':
        this.next();
        return { k: 'float', value: t.float!, pos };
      case 'string':
        this.next();
        return this.stringExpr(t);
      case 'ident':
        this.next();
        return { k: 'var', name: t.text, pos };
      case 'upper': {
        this.next();
        if (this.is('.') && (this.peek().kind === 'ident' || this.peek().kind === 'upper')) {
          this.next();
          const member = this.next();
          if (member.kind === 'upper')
            return { k: 'ctor', name: member.text, qualifier: t.text, pos };
          return { k: 'qvar', qualifier: t.text, name: member.text, pos };
        }
        return { k: 'ctor', name: t.text, qualifier: null, pos };
      }
      case 'keyword':
        return this.keywordExpr(t);
      case 'op':
        return this.opExpr(t);
      default:
        throw this.unexpected('an expression');
    }
  }

  private stringExpr(t: Token): Expr {
    const parts = t.parts!;
    if (parts.length === 1 && 'text' in parts[0]!)
      return { k: 'str', value: parts[0].text, pos: t.pos };
    const out: (string | Expr)[] = [];
    for (const part of parts) {
      if ('text' in part) {
        out.push(part.text);
      } else {
        const sub = new Parser(lex(part.expr, part.pos));
        const e = sub.expr();
        sub.expectEnd();
        out.push(e);
      }
    }
    return { k: 'interp', parts: out, pos: t.pos };
  }

  private keywordExpr(t: Token): Expr {
    const pos = t.pos;
    switch (t.text) {
      case 'true':
      case 'false':
        this.next();
        return { k: 'bool', value: t.text === 'true', pos };
      case 'if': {
        this.next();
        const cond = this.withNl(false, () => this.expr());
        this.expect('then', 'after the if condition');
        const thenE = this.expr();
        if (!this.is('else')) {
          throw this.unexpected('"else" (if/then/else always has an else branch)');
        }
        this.next();
        const elseE = this.expr();
        return { k: 'if', cond, then: thenE, else: elseE, pos };
      }
      case 'let':
      case 'letrec': {
        const binding = this.letBinding();
        if (!this.is('in')) throw this.unexpected('"in" after the let binding');
        this.next();
        const body = this.expr();
        return { k: 'let', ...binding, body, pos };
      }
      case 'match':
        return this.matchExpr();
      case 'func':
        return this.anonFunc();
      default:
        if (t.text === 'not') return this.unary();
        throw new CompileError(
          'PAR006',
          `"${t.text}" is a reserved word and cannot start an expression`,
          pos,
        );
    }
  }

  private opExpr(t: Token): Expr {
    const pos = t.pos;
    switch (t.text) {
      case '(': {
        this.next();
        return this.withNl(false, () => {
          if (this.accept(')')) return { k: 'unit', pos } as Expr;
          const first = this.expr();
          if (this.accept(')')) return first;
          const items = [first];
          while (this.accept(',')) {
            if (this.is(')')) break;
            items.push(this.expr());
          }
          this.expect(')', 'to close the tuple');
          return { k: 'tuple', items, pos } as Expr;
        });
      }
      case '[': {
        this.next();
        return this.withNl(false, () => {
          const items: Expr[] = [];
          while (!this.is(']')) {
            items.push(this.expr());
            if (!this.accept(',')) break;
          }
          this.expect(']', 'to close the list');
          return { k: 'list', items, pos } as Expr;
        });
      }
      case '{':
        return this.braceExpr();
      case '\\':
        return this.lambda();
      case '::': {
        // prefix cons ::(x, xs)
        this.next();
        this.expect('(');
        const [head, tail] = this.withNl(false, () => {
          const h = this.expr();
          this.expect(',');
          const tl = this.expr();
          this.expect(')');
          return [h, tl] as const;
        });
        return { k: 'binop', op: '::', left: head, right: tail, pos };
      }
    }
    throw this.unexpected('an expression');
  }

  /** `{` starts a record literal `{a: 1}`, an update `{r | a: 2}`, or a block. */
  private braceExpr(): Expr {
    const pos = this.tok.pos;
    const a = this.peek(1);
    const b = this.peek(2);
    if (a.kind === 'op' && a.text === '}') {
      this.next();
      this.next();
      return { k: 'record', fields: [], pos };
    }
    if (a.kind === 'ident' && b.kind === 'op' && b.text === ':') {
      this.next();
      return this.withNl(false, () => ({ k: 'record', fields: this.recordFields(), pos }) as Expr);
    }
    if (a.kind === 'ident' && b.kind === 'op' && b.text === '|') {
      this.next();
      const baseTok = this.next();
      this.next();
      return this.withNl(false, () => {
        const fields = this.recordFields();
        return {
          k: 'update',
          base: { k: 'var', name: baseTok.text, pos: baseTok.pos },
          fields,
          pos,
        } as Expr;
      });
    }
    return this.block();
  }

  private recordFields(): { name: string; value: Expr; pos: Pos }[] {
    const fields: { name: string; value: Expr; pos: Pos }[] = [];
    while (!this.is('}')) {
      const f = this.ident('a field name');
      this.expect(':', `after field "${f.text}"`);
      fields.push({ name: f.text, value: this.expr(), pos: f.pos });
      if (!this.accept(',')) break;
    }
    this.expect('}', 'to close the record');
    return fields;
  }

  private letBinding(): { pat: Pattern; type: TypeExpr | null; value: Expr; rec: boolean } {
    const rec = this.next().text === 'letrec';
    let pat: Pattern;
    if (rec) {
      const nameTok = this.ident('a name');
      pat = { k: 'pvar', name: nameTok.text, pos: nameTok.pos };
    } else {
      pat = this.pattern();
    }
    let type: TypeExpr | null = null;
    if (this.accept(':')) type = this.type();
    this.expect('=', 'in the let binding');
    const value = this.expr();
    return { pat, type, value, rec };
  }

  /** A block `{ stmt; stmt \n expr }` desugared into nested let / seq nodes. */
  block(): Expr {
    const pos = this.expect('{').pos;
    type Item = { let: ReturnType<Parser['letBinding']>; pos: Pos } | { expr: Expr };
    const items: Item[] = [];
    this.withNl(true, () => {
      while (!this.is('}')) {
        if (this.is('let') || this.is('letrec')) {
          const lpos = this.tok.pos;
          const binding = this.letBinding();
          if (this.accept('in')) {
            const body = this.expr();
            items.push({ expr: { k: 'let', ...binding, body, pos: lpos } });
          } else {
            items.push({ let: binding, pos: lpos });
          }
        } else {
          items.push({ expr: this.expr() });
        }
        if (this.accept(';')) {
          while (this.accept(';'));
          continue;
        }
        if (this.is('}')) break;
        if (!this.tok.nl) throw this.unexpected('";", a newline or "}" after the statement');
      }
      this.expect('}', 'to close the block');
    });
    if (items.length === 0) {
      throw new CompileError(
        'PAR001',
        'empty block: a block must end with an expression',
        pos,
        'write () for a unit value',
      );
    }
    const last = items[items.length - 1]!;
    if (!('expr' in last)) {
      throw new CompileError(
        'PAR001',
        'a block must end with an expression, not a let binding',
        last.pos,
        'add the value of the block after the let, e.g. ()',
      );
    }
    let acc = last.expr;
    for (let k = items.length - 2; k >= 0; k--) {
      const item = items[k]!;
      if ('expr' in item) acc = { k: 'seq', first: item.expr, then: acc, pos: item.expr.pos };
      else acc = { k: 'let', ...item.let, body: acc, pos: item.pos };
    }
    return acc;
  }

  private matchExpr(): Expr {
    const pos = this.next().pos;
    const scrutinee = this.withNl(false, () => this.expr());
    if (this.is('with')) {
      throw new CompileError(
        'PAR019',
        '"match x with { … }" is not AILANG syntax',
        this.tok.pos,
        'write match x { pattern => expr, … }',
      );
    }
    this.expect('{', 'to open the match arms');
    const arms: Arm[] = [];
    this.withNl(true, () => {
      while (!this.is('}')) {
        const pat = this.pattern();
        let guard: Expr | null = null;
        if (this.accept('if')) guard = this.withNl(false, () => this.expr());
        this.expect('=>', 'after the pattern');
        const body = this.expr();
        arms.push({ pat, guard, body });
        if (this.accept(',')) continue;
        if (this.is('}')) break;
        if (!this.tok.nl) throw this.unexpected('",", a newline or "}" after the match arm');
      }
      this.expect('}', 'to close the match');
    });
    if (arms.length === 0) throw new CompileError('PAR001', 'a match needs at least one arm', pos);
    return { k: 'match', scrutinee, arms, pos };
  }

  private lambda(): Expr {
    const pos = this.next().pos;
    const params: Param[] = [];
    if (this.is('(') && this.peek().text === ')') {
      this.next();
      this.next();
    } else {
      while (!this.is('.')) {
        const t = this.tok;
        if (t.kind !== 'ident') throw this.unexpected('a lambda parameter or "."');
        this.next();
        params.push({ name: t.text, type: null, pos: t.pos });
      }
      if (params.length === 0) throw this.unexpected('a lambda parameter');
    }
    this.expect('.', 'after the lambda parameters');
    const body = this.expr();
    return { k: 'lambda', params, ret: null, effects: null, body, pos };
  }

  private anonFunc(): Expr {
    const pos = this.next().pos;
    this.expect('(', 'to open the parameter list');
    const params: Param[] = [];
    this.withNl(false, () => {
      if (!this.is(')')) {
        do {
          const p = this.ident('a parameter name');
          let type: TypeExpr | null = null;
          if (this.accept(':')) type = this.type();
          params.push({ name: p.text, type, pos: p.pos });
        } while (this.accept(','));
      }
      this.expect(')', 'to close the parameter list');
    });
    let ret: TypeExpr | null = null;
    let effects: EffectRow | null = null;
    if (this.accept('->')) {
      ret = this.typeNoArrowRow();
      if (this.accept('!')) effects = this.effectRow();
    }
    const body = this.is('{')
      ? this.block()
      : (this.expect('=', 'or "{" to start the function body'), this.expr());
    return { k: 'lambda', params, ret, effects, body, pos };
  }

  // ------------------------------------------------------------------ patterns

  private pattern(): Pattern {
    const head = this.patternAtom();
    if (this.is('::')) {
      const pos = this.next().pos;
      return { k: 'pcons', head, tail: this.pattern(), pos };
    }
    return head;
  }

  private patternAtom(): Pattern {
    const t = this.tok;
    const pos = t.pos;
    switch (t.kind) {
      case 'ident':
        this.next();
        return t.text === '_' ? { k: 'pwild', pos } : { k: 'pvar', name: t.text, pos };
      case 'int':
        this.next();
        return { k: 'pint', value: t.int!, pos };
      case 'float':
        this.next();
        return { k: 'pfloat', value: t.float!, pos };
      case 'string': {
        this.next();
        const parts = t.parts!;
        if (parts.length !== 1 || !('text' in parts[0]!)) {
          throw new CompileError(
            'PAR001',
            'a string pattern cannot contain ${…} interpolation',
            pos,
          );
        }
        return { k: 'pstr', value: parts[0].text, pos };
      }
      case 'upper': {
        this.next();
        const args: Pattern[] = [];
        if (this.accept('(')) {
          this.withNl(false, () => {
            if (!this.is(')')) {
              do args.push(this.pattern());
              while (this.accept(','));
            }
            this.expect(')', `to close the ${t.text} pattern`);
          });
        }
        return { k: 'pctor', name: t.text, args, pos };
      }
      case 'keyword':
        if (t.text === 'true' || t.text === 'false') {
          this.next();
          return { k: 'pbool', value: t.text === 'true', pos };
        }
        break;
      case 'op':
        return this.opPattern(t);
      default:
        break;
    }
    throw this.unexpected('a pattern');
  }

  private opPattern(t: Token): Pattern {
    const pos = t.pos;
    if (t.text === '-' && (this.peek().kind === 'int' || this.peek().kind === 'float')) {
      this.next();
      const n = this.next();
      return n.kind === 'int'
        ? { k: 'pint', value: -n.int!, pos }
        : { k: 'pfloat', value: -n.float!, pos };
    }
    if (t.text === '(') {
      this.next();
      return this.withNl(false, () => {
        if (this.accept(')')) return { k: 'punit', pos } as Pattern;
        const items = [this.pattern()];
        while (this.accept(',')) items.push(this.pattern());
        this.expect(')', 'to close the pattern');
        return items.length === 1 ? items[0]! : ({ k: 'ptuple', items, pos } as Pattern);
      });
    }
    if (t.text === '[') {
      this.next();
      return this.withNl(false, () => {
        const items: Pattern[] = [];
        let rest: Pattern | null = null;
        while (!this.is(']')) {
          if (this.accept('...')) {
            rest = this.patternAtom();
            break;
          }
          items.push(this.pattern());
          if (!this.accept(',')) break;
        }
        this.expect(']', 'to close the list pattern');
        return { k: 'plist', items, rest, pos } as Pattern;
      });
    }
    if (t.text === '{') {
      this.next();
      return this.withNl(false, () => {
        const fields: { name: string; pat: Pattern }[] = [];
        let open = false;
        while (!this.is('}')) {
          if (this.accept('...')) {
            open = true;
            break;
          }
          const f = this.ident('a field name');
          const pat: Pattern = this.accept(':')
            ? this.pattern()
            : { k: 'pvar', name: f.text, pos: f.pos };
          fields.push({ name: f.text, pat });
          if (!this.accept(',')) break;
        }
        this.expect('}', 'to close the record pattern');
        return { k: 'precord', fields, open, pos } as Pattern;
      });
    }
    if (t.text === '::') {
      this.next();
      this.expect('(');
      const head = this.pattern();
      this.expect(',');
      const tail = this.pattern();
      this.expect(')');
      return { k: 'pcons', head, tail, pos };
    }
    throw this.unexpected('a pattern');
  }
}
