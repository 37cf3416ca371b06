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
 * The codes the embedded checker reports, with a one-line summary. Prefixes follow the real
 * toolchain's families (ailang.md §1.3: PAR, MOD, IMP, TC, RT); `ERROR` is the unstructured code
 * the real binary gives effect errors, kept so the effect error text has the same shape.
 */
export const ERROR_CODES = {
  PAR001: 'syntax error: unexpected token',
  PAR002: 'unterminated string literal',
  PAR003: 'invalid character',
  PAR004: 'invalid number literal',
  PAR005: 'unknown effect label',
  PAR006: 'reserved word used as a name',
  PAR007: 'unsupported syntax in the embedded subset',
  PAR019: '`match x with { ... }` is not AILANG syntax',
  MOD001: 'missing module header',
  MOD010: 'module path does not match the file path',
  IMP010: 'unknown module',
  IMP011: 'name is not exported by the module',
  IMP012: 'import cycle',
  IMP013: 'the same name is imported twice',
  TC_UNDEF_001: 'undefined variable',
  TC_UNDEF_002: 'undefined type',
  TC_UNDEF_003: 'undefined constructor',
  TC_DUP_001: 'duplicate definition',
  TC_TYPE_001: 'type mismatch',
  TC_CLASS_001: 'no instance of a built-in class (Num, Ord, Concat) for a type',
  TC_ARITY_001: 'wrong number of arguments',
  TC_REC_001: 'record has no such field',
  TC_REC_002: 'duplicate record field',
  TC_MATCH_002: 'constructor pattern with the wrong number of fields',
  TC_INF_001: 'infinite type',
  TC_EFF_001: 'effect annotation the embedded subset cannot honour',
  ERROR: 'effect checking failed (unstructured, as the real binary reports it)',
  IO_ERROR: 'the file cannot be read',
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
 * Builds a diagnostic, omitting empty optional fields (ailang.md §1.3 `omitempty`).
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
  if (suggestion) d.suggestion = suggestion;
  return d;
}
