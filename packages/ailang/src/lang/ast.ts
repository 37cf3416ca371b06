/**
 * The syntax tree of the embedded AILANG subset (ailang.md §2.1–§2.2). Blocks are desugared by
 * the parser into `let` / `seq` chains, interpolated strings into `interp` nodes.
 */
import type { Pos } from './diagnostics.js';

/** A type as written in source. */
export type TypeExpr =
  | { k: 'tname'; name: string; args: TypeExpr[]; pos: Pos }
  | { k: 'tlist'; elem: TypeExpr; pos: Pos }
  | { k: 'ttuple'; items: TypeExpr[]; pos: Pos }
  | { k: 'tunit'; pos: Pos }
  | {
      k: 'trecord';
      fields: { name: string; type: TypeExpr }[];
      rest: string | null;
      open: boolean;
      pos: Pos;
    }
  | { k: 'tfun'; params: TypeExpr[]; ret: TypeExpr; effects: EffectRow | null; pos: Pos };

/** An effect row `! {IO, FS, e}`: capability labels plus lowercase row variables. */
export interface EffectRow {
  labels: { name: string; pos: Pos }[];
  vars: string[];
  /** `@limit=` / `@min=` annotations were present (refused by the checker) */
  budgeted: Pos | null;
  pos: Pos;
}

/** A pattern. */
export type Pattern =
  | { k: 'pwild'; pos: Pos }
  | { k: 'pvar'; name: string; pos: Pos }
  | { k: 'pint'; value: bigint; pos: Pos; asFloat?: boolean; numVar?: unknown }
  | { k: 'pfloat'; value: number; pos: Pos }
  | { k: 'pstr'; value: string; pos: Pos }
  | { k: 'pbool'; value: boolean; pos: Pos }
  | { k: 'punit'; pos: Pos }
  | { k: 'pctor'; name: string; args: Pattern[]; pos: Pos }
  | { k: 'plist'; items: Pattern[]; rest: Pattern | null; pos: Pos }
  | { k: 'pcons'; head: Pattern; tail: Pattern; pos: Pos }
  | { k: 'ptuple'; items: Pattern[]; pos: Pos }
  | { k: 'precord'; fields: { name: string; pat: Pattern }[]; open: boolean; pos: Pos };

/** A lambda / anonymous-function parameter. */
export interface Param {
  name: string;
  type: TypeExpr | null;
  pos: Pos;
}

/** A match arm. */
export interface Arm {
  pat: Pattern;
  guard: Expr | null;
  body: Expr;
}

/** Binary operators. */
export type BinOp =
  | '+'
  | '-'
  | '*'
  | '/'
  | '%'
  | '**'
  | '++'
  | '::'
  | '=='
  | '!='
  | '<'
  | '>'
  | '<='
  | '>='
  | '&&'
  | '||';

/** An expression. `int` literals carry the type the checker resolved (`asFloat`). */
export type Expr =
  | { k: 'int'; value: bigint; pos: Pos; asFloat?: boolean; numVar?: unknown }
  | { k: 'float'; value: number; pos: Pos }
  | { k: 'str'; value: string; pos: Pos }
  | { k: 'interp'; parts: (string | Expr)[]; pos: Pos }
  | { k: 'bool'; value: boolean; pos: Pos }
  | { k: 'unit'; pos: Pos }
  | { k: 'var'; name: string; pos: Pos }
  | { k: 'qvar'; qualifier: string; name: string; pos: Pos }
  | { k: 'ctor'; name: string; qualifier: string | null; pos: Pos }
  | { k: 'list'; items: Expr[]; pos: Pos }
  | { k: 'tuple'; items: Expr[]; pos: Pos }
  | { k: 'record'; fields: { name: string; value: Expr; pos: Pos }[]; pos: Pos }
  | { k: 'update'; base: Expr; fields: { name: string; value: Expr; pos: Pos }[]; pos: Pos }
  | { k: 'field'; target: Expr; name: string; pos: Pos }
  | { k: 'call'; fn: Expr; args: Expr[]; pos: Pos }
  | {
      k: 'lambda';
      params: Param[];
      ret: TypeExpr | null;
      effects: EffectRow | null;
      body: Expr;
      pos: Pos;
    }
  | {
      k: 'let';
      pat: Pattern;
      type: TypeExpr | null;
      value: Expr;
      body: Expr;
      rec: boolean;
      pos: Pos;
    }
  | { k: 'seq'; first: Expr; then: Expr; pos: Pos }
  | { k: 'if'; cond: Expr; then: Expr; else: Expr; pos: Pos }
  | { k: 'match'; scrutinee: Expr; arms: Arm[]; pos: Pos }
  | { k: 'binop'; op: BinOp; left: Expr; right: Expr; pos: Pos }
  | { k: 'unop'; op: '-' | '!'; operand: Expr; pos: Pos };

/** A function declaration. */
export interface FuncDecl {
  kind: 'func';
  name: string;
  exported: boolean;
  pure: boolean;
  tparams: string[];
  params: { name: string; type: TypeExpr; pos: Pos }[];
  ret: TypeExpr;
  effects: EffectRow | null;
  body: Expr;
  pos: Pos;
}

/** One constructor of an ADT. */
export interface CtorDecl {
  name: string;
  fields: TypeExpr[];
  pos: Pos;
}

/** A type declaration: an ADT or an alias. */
export interface TypeDecl {
  kind: 'type';
  name: string;
  exported: boolean;
  tparams: string[];
  ctors: CtorDecl[] | null;
  alias: TypeExpr | null;
  pos: Pos;
}

/** An import: `import std/io (println)` or `import std/list as L`. */
export interface Import {
  path: string;
  names: { name: string; pos: Pos }[] | null;
  alias: string | null;
  pos: Pos;
}

/** A declaration. */
export type Decl = FuncDecl | TypeDecl;

/** A parsed file. */
export interface Module {
  name: string;
  namePos: Pos;
  imports: Import[];
  decls: Decl[];
}
