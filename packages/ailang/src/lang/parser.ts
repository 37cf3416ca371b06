import type {
  CtorDecl,
  Decl,
  EffectRow,
  Expr,
  FuncDecl,
  Import,
  Module,
  TypeDecl,
  TypeExpr,
} from './ast.js';
import { CompileError } from './diagnostics.js';
import { lex, type Token } from './lexer.js';
import { BlockParser } from './parser/blocks.js';

/**
 * Recursive-descent parser of the embedded AILANG subset (grammar sketch of ailang.md §2.2), in
 * layers: tokens → types → patterns → expressions → blocks (parser/*.ts) → the module level here
 * (header, imports, declarations). Errors are CompileError PAR0xx with the position of the
 * offending token.
 */

/**
 * Parses a whole source file.
 * @throws CompileError (PAR0xx, MOD014) at the first syntax error
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

class Parser extends BlockParser {
  protected fork(tokens: Token[]): Parser {
    return new Parser(tokens);
  }

  // ------------------------------------------------------------------ module level

  module(): Module {
    if (!this.is('module')) {
      // The current toolchain refuses a module-less file that declares functions (MOD014);
      // the embedded subset has no bare-expression scripts, so it refuses every such file.
      throw new CompileError(
        'MOD014',
        'missing module declaration: a file must start with "module <path>"',
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

  protected modulePath(): string {
    const parts: string[] = [];
    do {
      // A word that is a keyword elsewhere (`tests`, `type`) is an ordinary path segment here.
      const t = this.tok;
      if (t.kind !== 'ident' && t.kind !== 'upper' && t.kind !== 'keyword')
        throw this.unexpected('a module path segment');
      parts.push(this.next().text);
    } while (this.accept('/'));
    return parts.join('/');
  }

  protected importDecl(): Import {
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

  protected decl(): Decl {
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

  protected funcDecl(exported: boolean, pure: boolean): FuncDecl {
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
  protected skipContracts(): void {
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

  protected typeParams(): string[] {
    const out: string[] = [];
    if (this.accept('[')) {
      do out.push(this.ident('a type variable').text);
      while (this.accept(','));
      this.expect(']', 'to close the type parameters');
    }
    return out;
  }

  protected typeDecl(exported: boolean): TypeDecl {
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
}
