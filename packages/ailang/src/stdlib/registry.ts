/**
 * The builtins registry of the embedded toolchain: every function the embedded standard
 * library provides, with its module, effect, signature and a one-line doc (ailang.md §4; the
 * public signatures follow the `export func` headers of std/*.ail, ailang.md §2.3). The checker
 * reads the types from here, the interpreter the implementations (stdlib/impl.ts), and
 * `builtins list` / `iface` print it.
 */

/** One registry entry. */
export interface BuiltinSpec {
  /** registry name, `_<area>_<export>` like the real registry (`_io_println`) */
  name: string;
  /** the std module exporting it (`std/io`), or `prelude` for always-available names */
  module: string;
  /** the name user code imports */
  export: string;
  /** parameter names, for docs and `builtins show` */
  params: string[];
  /** the type in AILANG syntax, with the effect row when effectful */
  type: string;
  /** one line of documentation */
  doc: string;
}

/** The ADTs the standard library exports (std/option, std/result), always in scope. */
export const STD_TYPES = [
  {
    module: 'std/option',
    name: 'Option',
    params: ['a'],
    ctors: [
      { name: 'Some', fields: ['a'] },
      { name: 'None', fields: [] },
    ],
  },
  {
    module: 'std/result',
    name: 'Result',
    params: ['a', 'e'],
    ctors: [
      { name: 'Ok', fields: ['a'] },
      { name: 'Err', fields: ['e'] },
    ],
  },
] as const;

type Row = [exportName: string, params: string, type: string, doc: string];

function area(module: string, prefix: string, rows: Row[]): BuiltinSpec[] {
  return rows.map(([exp, params, type, doc]) => ({
    name: `${prefix}${exp}`,
    module,
    export: exp,
    params: params === '' ? [] : params.split(','),
    type,
    doc,
  }));
}

/** Every builtin, in registry order (listings sort by name). */
export const BUILTINS: readonly BuiltinSpec[] = [
  ...area('prelude', '', [
    [
      'show',
      'x',
      '(a) -> string',
      'Render any value as text (strings unquoted, records sorted by field)',
    ],
  ]),
  ...area('std/io', '_io_', [
    ['print', 's', '(string) -> () ! {IO}', 'Print a string to stdout without a newline'],
    ['println', 's', '(string) -> () ! {IO}', 'Print a string to stdout with a newline'],
    ['printErr', 's', '(string) -> () ! {IO}', 'Print a string to stderr without a newline'],
    ['eprintln', 's', '(string) -> () ! {IO}', 'Print a string to stderr with a newline'],
    [
      'readLine',
      '',
      '() -> string ! {IO}',
      'Read one line of stdin without its line ending; "" at end of input',
    ],
    [
      'readLineOpt',
      '',
      '() -> Option[string] ! {IO}',
      'Read one line of stdin; None at end of input',
    ],
    ['flush', '', '() -> () ! {IO}', 'Flush stdout (a no-op: output is never buffered here)'],
    ['exit', 'code', '(int) -> () ! {IO}', 'Stop the program with an exit code (taken modulo 256)'],
  ]),
  ...area('std/fs', '_fs_', [
    [
      'readFile',
      'path',
      '(string) -> string ! {FS}',
      'Read a whole file inside the sandbox as text',
    ],
    [
      'writeFile',
      'path,content',
      '(string, string) -> () ! {FS}',
      'Create or truncate a file inside the sandbox and write text',
    ],
    [
      'appendFile',
      'path,content',
      '(string, string) -> () ! {FS}',
      'Append text to a file inside the sandbox, creating it',
    ],
    [
      'fileExists',
      'path',
      '(string) -> bool ! {FS}',
      'True when a file or directory exists inside the sandbox',
    ],
    [
      'listDir',
      'path',
      '(string) -> [string] ! {FS}',
      'Names in a directory inside the sandbox, sorted',
    ],
    [
      'mkdir',
      'path',
      '(string) -> () ! {FS}',
      'Create one directory inside the sandbox (the parent must exist)',
    ],
    [
      'mkdirAll',
      'path',
      '(string) -> () ! {FS}',
      'Create a directory and its parents inside the sandbox',
    ],
    [
      'isDir',
      'path',
      '(string) -> bool ! {FS}',
      'True when the path is a directory inside the sandbox',
    ],
    [
      'isFile',
      'path',
      '(string) -> bool ! {FS}',
      'True when the path is a regular file inside the sandbox',
    ],
    [
      'removeFile',
      'path',
      '(string) -> () ! {FS}',
      'Remove a file or an empty directory inside the sandbox',
    ],
    [
      'renameFile',
      'oldPath,newPath',
      '(string, string) -> () ! {FS}',
      'Rename a file; both paths stay inside the sandbox',
    ],
    [
      'readFileResult',
      'path',
      '(string) -> Result[string, string] ! {FS}',
      'readFile, with I/O failures as Err(message)',
    ],
    [
      'writeFileResult',
      'path,content',
      '(string, string) -> Result[(), string] ! {FS}',
      'writeFile, with I/O failures as Err(message)',
    ],
    [
      'appendFileResult',
      'path,content',
      '(string, string) -> Result[(), string] ! {FS}',
      'appendFile, with I/O failures as Err(message)',
    ],
    [
      'removeFileResult',
      'path',
      '(string) -> Result[(), string] ! {FS}',
      'removeFile, with I/O failures as Err(message)',
    ],
    [
      'mkdirAllResult',
      'path',
      '(string) -> Result[(), string] ! {FS}',
      'mkdirAll, with I/O failures as Err(message)',
    ],
  ]),
  ...area('std/string', '_str_', [
    ['length', 's', '(string) -> int', 'Number of characters (Unicode code points)'],
    [
      'substring',
      's,start,end',
      '(string, int, int) -> string',
      'Characters from start up to end (clamped to the string)',
    ],
    ['toUpper', 's', '(string) -> string', 'Upper-case copy'],
    ['toLower', 's', '(string) -> string', 'Lower-case copy'],
    ['trim', 's', '(string) -> string', 'Copy without leading and trailing whitespace'],
    ['compare', 'a,b', '(string, string) -> int', '-1, 0 or 1 by code-point order'],
    [
      'find',
      'hay,needle',
      '(string, string) -> int',
      'Index of the first occurrence of needle, or -1',
    ],
    ['contains', 's,sub', '(string, string) -> bool', 'True when sub occurs in s'],
    ['startsWith', 's,prefix', '(string, string) -> bool', 'True when s starts with prefix'],
    ['endsWith', 's,suffix', '(string, string) -> bool', 'True when s ends with suffix'],
    [
      'split',
      's,sep',
      '(string, string) -> [string]',
      'Split at every occurrence of sep ("" splits into characters)',
    ],
    ['chars', 's', '(string) -> [string]', 'The characters of a string'],
    ['words', 's', '(string) -> [string]', 'Split at runs of whitespace, dropping empty pieces'],
    [
      'lines',
      's',
      '(string) -> [string]',
      'Split at line endings (a final newline ends the last line)',
    ],
    ['join', 'delim,xs', '(string, [string]) -> string', 'Join strings with a delimiter'],
    ['repeat', 's,n', '(string, int) -> string', 'A string repeated n times (n < 0 gives "")'],
    [
      'replace',
      's,old,new',
      '(string, string, string) -> string',
      'Replace every occurrence of old by new',
    ],
    [
      'stringToInt',
      's',
      '(string) -> Option[int]',
      'Parse a decimal int (optional sign); None when malformed or out of range',
    ],
    ['stringToFloat', 's', '(string) -> Option[float]', 'Parse a float; None when malformed'],
    ['intToStr', 'n', '(int) -> string', 'Decimal text of an int'],
    ['floatToStr', 'x', '(float) -> string', 'Text of a float, as show prints it'],
  ]),
  ...area('std/list', '_list_', [
    ['length', 'xs', '([a]) -> int', 'Number of elements'],
    ['head', 'xs', '([a]) -> Option[a]', 'First element, or None'],
    ['tail', 'xs', '([a]) -> [a]', 'All but the first element ([] for [])'],
    ['last', 'xs', '([a]) -> Option[a]', 'Last element, or None'],
    ['nth', 'xs,idx', '([a], int) -> Option[a]', 'Element at a 0-based index, or None'],
    ['reverse', 'xs', '([a]) -> [a]', 'Elements in reverse order'],
    ['concat', 'xs,ys', '([a], [a]) -> [a]', 'xs followed by ys'],
    ['take', 'n,xs', '(int, [a]) -> [a]', 'The first n elements'],
    ['drop', 'n,xs', '(int, [a]) -> [a]', 'All but the first n elements'],
    ['zip', 'xs,ys', '([a], [b]) -> [(a, b)]', 'Pairs of elements, up to the shorter list'],
    ['contains', 'xs,x', '([a], a) -> bool', 'True when x is an element (structural equality)'],
    ['map', 'f,xs', '((a) -> b, [a]) -> [b]', 'Apply f to each element'],
    ['filter', 'p,xs', '((a) -> bool, [a]) -> [a]', 'Elements for which p holds'],
    ['foldl', 'f,acc,xs', '((b, a) -> b, b, [a]) -> b', 'Left fold: f(f(acc, x1), x2)…'],
    ['foldr', 'f,acc,xs', '((a, b) -> b, b, [a]) -> b', 'Right fold: f(x1, f(x2, … acc))'],
    [
      'sortBy',
      'cmp,xs',
      '((a, a) -> int, [a]) -> [a]',
      'Stable sort by a comparison returning <0, 0 or >0',
    ],
    ['any', 'p,xs', '((a) -> bool, [a]) -> bool', 'True when p holds for some element'],
    ['all', 'p,xs', '((a) -> bool, [a]) -> bool', 'True when p holds for every element'],
    [
      'findIndex',
      'p,xs',
      '((a) -> bool, [a]) -> Option[int]',
      'Index of the first element satisfying p',
    ],
    ['zipWith', 'f,xs,ys', '((a, b) -> c, [a], [b]) -> [c]', 'Combine two lists element-wise'],
    ['flatMap', 'f,xs', '((a) -> [b], [a]) -> [b]', 'Map then flatten'],
    [
      'mapE',
      'f,xs',
      '((a) -> b ! {e}, [a]) -> [b] ! {e}',
      'map with an effectful function, left to right',
    ],
    [
      'filterE',
      'p,xs',
      '((a) -> bool ! {e}, [a]) -> [a] ! {e}',
      'filter with an effectful predicate, left to right',
    ],
    [
      'foldlE',
      'f,acc,xs',
      '((b, a) -> b ! {e}, b, [a]) -> b ! {e}',
      'foldl with an effectful function, left to right',
    ],
    [
      'flatMapE',
      'f,xs',
      '((a) -> [b] ! {e}, [a]) -> [b] ! {e}',
      'flatMap with an effectful function, left to right',
    ],
    [
      'forEachE',
      'f,xs',
      '((a) -> () ! {e}, [a]) -> () ! {e}',
      'Run an effectful function on each element',
    ],
  ]),
  ...area('std/math', '_math_', [
    ['sqrt', 'x', '(float) -> float', 'Square root'],
    ['pow', 'x,y', '(float, float) -> float', 'x raised to the power y'],
    ['exp', 'x', '(float) -> float', 'e raised to x'],
    ['log', 'x', '(float) -> float', 'Natural logarithm'],
    ['log10', 'x', '(float) -> float', 'Base-10 logarithm'],
    ['sin', 'x', '(float) -> float', 'Sine of an angle in radians'],
    ['cos', 'x', '(float) -> float', 'Cosine of an angle in radians'],
    ['tan', 'x', '(float) -> float', 'Tangent of an angle in radians'],
    ['atan2', 'y,x', '(float, float) -> float', 'Angle of the point (x, y) in radians'],
    ['floor', 'x', '(float) -> float', 'Round down'],
    ['ceil', 'x', '(float) -> float', 'Round up'],
    ['round', 'x', '(float) -> float', 'Round to nearest, halves away from zero'],
    ['floatToInt', 'x', '(float) -> int', 'Truncate toward zero'],
    ['intToFloat', 'x', '(int) -> float', 'Convert an int to float'],
    ['abs_Int', 'x', '(int) -> int', 'Absolute value of an int'],
    ['abs_Float', 'x', '(float) -> float', 'Absolute value of a float'],
    ['PI', '', '() -> float', 'The constant π'],
    ['E', '', '() -> float', "Euler's number e"],
  ]),
  ...area('std/option', '_option_', [
    ['map', 'f,opt', '((a) -> b, Option[a]) -> Option[b]', 'Apply f inside Some'],
    [
      'flatMap',
      'f,opt',
      '((a) -> Option[b], Option[a]) -> Option[b]',
      'Chain an Option-returning function',
    ],
    ['getOrElse', 'opt,default', '(Option[a], a) -> a', 'The value inside Some, or the default'],
    ['isSome', 'opt', '(Option[a]) -> bool', 'True for Some'],
    ['isNone', 'opt', '(Option[a]) -> bool', 'True for None'],
    [
      'filter',
      'pred,opt',
      '((a) -> bool, Option[a]) -> Option[a]',
      'Keep Some only when pred holds',
    ],
  ]),
  ...area('std/result', '_result_', [
    ['map', 'f,r', '((a) -> b, Result[a, e]) -> Result[b, e]', 'Apply f inside Ok'],
    ['mapErr', 'f,r', '((e1) -> e2, Result[a, e1]) -> Result[a, e2]', 'Apply f inside Err'],
    [
      'flatMap',
      'f,r',
      '((a) -> Result[b, e], Result[a, e]) -> Result[b, e]',
      'Chain a Result-returning function',
    ],
    ['isOk', 'r', '(Result[a, e]) -> bool', 'True for Ok'],
    ['isErr', 'r', '(Result[a, e]) -> bool', 'True for Err'],
    ['unwrap', 'r', '(Result[a, e]) -> a', 'The value inside Ok; a runtime error for Err'],
  ]),
  ...area('std/env', '_env_', [
    ['getArgs', '', '() -> [string] ! {Env}', 'The program arguments given after the file'],
    [
      'getEnv',
      'name',
      '(string) -> Option[string] ! {Env}',
      "A variable of the run's minimal environment",
    ],
    [
      'getEnvOr',
      'name,defaultValue',
      '(string, string) -> string ! {Env}',
      'getEnv with a fallback',
    ],
    [
      'hasEnv',
      'name',
      '(string) -> bool ! {Env}',
      "True when the run's minimal environment sets the variable",
    ],
  ]),
];

/** Builtins by registry name. */
export const BUILTINS_BY_NAME: ReadonlyMap<string, BuiltinSpec> = new Map(
  BUILTINS.map((b) => [b.name, b]),
);

/** The std modules the embedded toolchain provides, with their exports by public name. */
export const STD_MODULES: ReadonlyMap<string, ReadonlyMap<string, BuiltinSpec>> = (() => {
  const out = new Map<string, Map<string, BuiltinSpec>>();
  for (const t of STD_TYPES) out.set(t.module, new Map());
  for (const b of BUILTINS) {
    if (b.module === 'prelude') continue;
    let m = out.get(b.module);
    if (!m) out.set(b.module, (m = new Map()));
    m.set(b.export, b);
  }
  return out;
})();

/** The effect a builtin performs (the first label of its row), or null when pure. */
export function effectOf(spec: BuiltinSpec): string | null {
  const m = /!\s*\{\s*([A-Z][A-Za-z]*)/.exec(spec.type.slice(spec.type.lastIndexOf('->')));
  return m ? m[1]! : null;
}

/** `name: type` as the real registry prints signatures (ailang.md §1.7). */
export function signatureOf(spec: BuiltinSpec): string {
  return `${spec.name}: ${spec.type}`;
}
