/**
 * Compiler diagnostics of the embedded AILANG subset: the `ailang check --json` error shape
 * (ailang.md §1.3) and the error-code table every phase draws from.
 */

/** A 1-based source position. */
export interface Pos {
  line: number;
  column: number;
}

/**
 * One error as `ailang check --json` prints it (ailang.md §1.3): `file`, `line`, `column` and
 * `suggestion` are omitted when empty.
 */
export interface Diagnostic {
  code: string;
  message: string;
  file?: string;
  line?: number;
  column?: number;
  suggestion?: string;
}

/**
 * The codes the embedded checker reports, each with a one-line summary and the fix hint a
 * diagnostic carries when its error has no more specific suggestion (like the real release's
 * error_codes.json `{code, summary, fix_hint}`, ailang.md §1.3). Prefixes follow the real
 * toolchain's families (ailang.md §1.3: PAR, MOD, IMP, TC, RT); `ERROR` is the unstructured code
 * the real binary gives effect errors, kept so the effect error text has the same shape.
 */
const ERROR_CODES = {
  PAR001: [
    'syntax error: unexpected token',
    'compare the line with the AILANG grammar: blocks use ; or newlines, match arms use , or newlines, if needs else',
  ],
  PAR002: [
    'unterminated string literal',
    'close the string with " on the same line; write \\n for a newline',
  ],
  PAR003: ['invalid character', 'remove the character; AILANG source uses ASCII operators'],
  PAR004: [
    'invalid number literal',
    'ints are 64-bit decimals, floats need digits on both sides of the point',
  ],
  PAR005: [
    'unknown effect label',
    'effect labels are IO, FS, Net, Clock, Rand, Env, AI, Process, Stream, …; lowercase names are row variables',
  ],
  PAR006: [
    'reserved word used as a name',
    'rename it; reserved words cannot be variable, function or parameter names',
  ],
  PAR007: [
    'unsupported syntax in the embedded subset',
    'rewrite with the supported core (lists instead of arrays, functions instead of top-level lets)',
  ],
  PAR019: ['`match x with { ... }` is not AILANG syntax', 'write match x { pattern => expr, … }'],
  MOD014: [
    'missing module declaration',
    'add "module <path>" as the first line, where <path> is the file path without .ail',
  ],
  MOD010: [
    'module path does not match the file path',
    'make the module header equal the file path relative to the worktree, without .ail',
  ],
  IMP010: [
    'unknown module',
    'import a std module the toolchain provides, or a module file of the worktree',
  ],
  IMP011: ['name is not exported by the module', 'import only names the module exports'],
  IMP012: ['import cycle', 'move the shared definitions into a module both import'],
  IMP013: [
    'the same name is imported twice',
    'import one of the modules under an alias: import std/x as X, then X.name',
  ],
  TC_UNDEF_001: ['undefined variable', 'define the name, fix its spelling, or import it'],
  TC_UNDEF_002: [
    'undefined type',
    'declare the type with "type", import it, or use a base type (int, float, string, bool, ())',
  ],
  TC_UNDEF_003: [
    'undefined constructor',
    'declare the constructor in a "type" declaration or import its type',
  ],
  TC_DUP_001: ['duplicate definition', 'rename one of the definitions'],
  TC_TYPE_001: [
    'type mismatch',
    'change the expression or the annotation so both have the expected type',
  ],
  TC_CLASS_001: [
    'no instance of a built-in class (Num, Ord, Concat) for a type',
    'arithmetic needs int or float, comparisons int, float or string, ++ strings or lists; convert with show / stringToInt / intToFloat',
  ],
  TC_ARITY_001: [
    'wrong number of arguments',
    'AILANG has no partial application: pass every argument, or wrap the call in a lambda',
  ],
  TC_REC_001: ['record has no such field', 'use a field the record type declares'],
  TC_REC_002: ['duplicate record field', 'give each field once'],
  TC_REC_003: [
    'record with fields the expected closed record type does not have',
    'declare the parameter open, {name: T, ...} or {name: T | r}, or pass only the declared fields',
  ],
  TC_MATCH_002: [
    'constructor pattern with the wrong number of fields',
    'give the pattern one sub-pattern per constructor field',
  ],
  TC_INF_001: [
    'infinite type',
    'a value cannot contain itself; check recursive calls and list construction',
  ],
  TC_EFF_001: [
    'effect annotation the embedded subset cannot honour',
    'remove the annotation or the conflicting "pure"',
  ],
  ERROR: [
    'effect checking failed (unstructured, as the real binary reports it)',
    'declare the missing effects in the function signature',
  ],
  LIMIT001: [
    'the program nests deeper than the embedded checker can follow',
    'split the deep expression into let bindings or helper functions (a long `a + b + …` chain or deeply nested calls)',
  ],
  IO_ERROR: ['the file cannot be read', 'check the path: it is relative to the worktree root'],
} as const;

/** A known diagnostic code. */
export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * A compile-time error with its code, position and suggestion. Thrown by the lexer, parser and
 * checker; `toDiagnostic` renders it for the check report.
 */
export class CompileError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly pos: Pos | null,
    readonly suggestion?: string,
  ) {
    super(detail);
    this.name = 'CompileError';
  }
}

/** `file:line:column` of a position. */
export function at(file: string, pos: Pos): string {
  return `${file}:${pos.line}:${pos.column}`;
}

/**
 * Builds a diagnostic, omitting empty optional fields (ailang.md §1.3 `omitempty`). Without a
 * specific suggestion, a known code's fix hint is used.
 */
export function diagnostic(
  code: string,
  message: string,
  file?: string,
  pos?: Pos | null,
  suggestion?: string,
): Diagnostic {
  const d: Diagnostic = { code, message };
  if (file) d.file = file;
  if (pos) {
    d.line = pos.line;
    d.column = pos.column;
  }
  const hint = suggestion ?? (code in ERROR_CODES ? ERROR_CODES[code as ErrorCode][1] : undefined);
  if (hint) d.suggestion = hint;
  return d;
}
