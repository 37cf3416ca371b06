import { createHash } from 'node:crypto';
import { resourceLimits } from 'node:worker_threads';
import type { FuncDecl, Module } from './ast.js';
import { checkModule } from './checker.js';
import type { CheckedModule, ModuleInterface } from './checker/scope.js';
import { stdInterfaces } from './checker/std-scope.js';
import { CompileError, at, diagnostic, type Diagnostic, type Pos } from './diagnostics.js';
import { checkEffects, effectErrorText } from './effects.js';
import { parseModule } from './parser.js';

/**
 * The check pipeline of `ailang check` (ailang.md §1.3): read the entry file, parse it and every
 * user module it imports (files resolved against the worktree root, headers checked against
 * their paths — MOD010), type-check modules in dependency order, then effect-check them when no
 * type error was found.
 */

/** A failed read, with the Go-style message the real binary prints (`open x.ail: no such file or directory`). */
export class ReadFailure extends Error {}

/** Reads module sources relative to the worktree root (confinement is the reader's job). */
export interface SourceReader {
  /** @throws ReadFailure */
  read(relPath: string): string;
}

/** One module of the program. */
export interface LoadedModule {
  path: string;
  file: string;
  source: string;
  ast: Module;
  checked: CheckedModule | null;
}

/** The outcome of checking a program. */
export interface CheckResult {
  /** the entry path as given */
  file: string;
  /** the entry's module path, when it parsed */
  module: string | null;
  /** how far checking got */
  phase: 'read' | 'parse' | 'type' | 'effect' | 'ok';
  diagnostics: Diagnostic[];
  /** user modules in dependency order, the entry last */
  modules: LoadedModule[];
  /** warnings the real toolchain prints on stderr (they never fail a check) */
  warnings: string[];
}

/**
 * The real loader's warning for the legacy import prefix `stdlib/std/` (it reads the module as
 * `std/…`), printed once per load.
 */
const LEGACY_STDLIB_WARNING =
  "Warning: import path 'stdlib/std/*' is deprecated; use 'std/*' instead";
const LEGACY_STDLIB_PREFIX = 'stdlib/std/';

/** The file path a module path names: `a/b` → `a/b.ail`. */
export function moduleFile(path: string): string {
  return `${path}.ail`;
}

/** The module path a file must declare (MOD010): the path without `./` and `.ail`. */
function expectedModulePath(file: string): string {
  let p = file.replace(/\\/g, '/');
  while (p.startsWith('./')) p = p.slice(2);
  return p.endsWith('.ail') ? p.slice(0, -'.ail'.length) : p;
}

/**
 * Checks a program.
 * @param file the entry file, relative to the reader's root
 */
export function checkProgram(file: string, reader: SourceReader): CheckResult {
  const loader = new Loader(reader);
  try {
    return checkWith(loader, file, reader);
  } catch (e) {
    if (!isStackExhaustion(e)) throw e;
    // The parser, checker and effect checker recurse over the syntax tree; a tree deeper than
    // the thread's stack is a limit of this toolchain, reported as one, never a crash.
    return {
      file,
      module: null,
      phase: 'parse',
      diagnostics: [diagnostic('LIMIT001', nestingLimitMessage(), file)],
      modules: [],
      warnings: [],
    };
  }
}

/**
 * The LIMIT001 text: which limit was hit and its value — the stack size of the worker thread
 * checking the program (AILANG_WORKER_STACK_MB, read from the thread's own resource limits:
 * worker code never loads the contracts package), or the calling thread's default stack.
 */
function nestingLimitMessage(): string {
  const mb = resourceLimits.stackSizeMb;
  const stack =
    mb === undefined
      ? "the calling thread's default stack"
      : `the embedded toolchain's worker thread has ${mb} MiB`;
  return `the program nests too deeply for the embedded AILANG checker: it ran out of call stack (${stack})`;
}

function isStackExhaustion(e: unknown): boolean {
  return e instanceof RangeError && /call stack/i.test(e.message);
}

function checkWith(loader: Loader, file: string, reader: SourceReader): CheckResult {
  let entrySource: string;
  try {
    entrySource = reader.read(file);
  } catch (e) {
    if (!(e instanceof ReadFailure)) throw e;
    return {
      file,
      module: null,
      phase: 'read',
      diagnostics: [diagnostic('IO_ERROR', e.message, file)],
      modules: [],
      warnings: [],
    };
  }
  const entry = loader.parse(file, entrySource, expectedModulePath(file));
  if (entry === null) return loader.result(file, null, 'parse');
  loader.loadImports(entry, [entry.path]);
  if (loader.diagnostics.length > 0) return loader.result(file, entry.path, 'parse');
  loader.typeCheck();
  if (loader.diagnostics.length > 0) return loader.result(file, entry.path, 'type');
  loader.effectCheck();
  if (loader.diagnostics.length > 0) return loader.result(file, entry.path, 'effect');
  return loader.result(file, entry.path, 'ok');
}

/** sha256 over the module graph's files (path and bytes, in dependency order), and its size. */
export function moduleGraph(modules: readonly LoadedModule[]): {
  digest: string;
  files: number;
  bytes: number;
} {
  const h = createHash('sha256');
  let bytes = 0;
  for (const m of modules) {
    const b = Buffer.from(m.source, 'utf8');
    bytes += b.length;
    h.update(`${m.file}\n${b.length}\n`);
    h.update(b);
  }
  return { digest: h.digest('hex'), files: modules.length, bytes };
}

/** The function declarations of a module. */
export function funcDecls(ast: Module): FuncDecl[] {
  return ast.decls.filter((d): d is FuncDecl => d.kind === 'func');
}

class Loader {
  readonly diagnostics: Diagnostic[] = [];
  readonly warnings: string[] = [];
  private readonly byPath = new Map<string, LoadedModule | null>();
  private readonly order: LoadedModule[] = [];

  constructor(private readonly reader: SourceReader) {}

  result(file: string, module: string | null, phase: CheckResult['phase']): CheckResult {
    return {
      file,
      module,
      phase,
      diagnostics: this.diagnostics,
      modules: this.order,
      warnings: this.warnings,
    };
  }

  private syntax(file: string, e: CompileError): void {
    const pos = e.pos ?? { line: 1, column: 1 };
    this.diagnostics.push(
      diagnostic(e.code, `${at(file, pos)}: ${e.detail}`, file, pos, e.suggestion),
    );
  }

  parse(file: string, source: string, expectedPath: string): LoadedModule | null {
    let ast: Module;
    try {
      ast = parseModule(source);
    } catch (e) {
      if (!(e instanceof CompileError)) throw e;
      this.syntax(file, e);
      return null;
    }
    if (ast.name !== expectedPath) {
      this.syntax(
        file,
        new CompileError(
          'MOD010',
          `module path "${ast.name}" does not match the file path (expected "module ${expectedPath}")`,
          ast.namePos,
          `change the header to: module ${expectedPath}`,
        ),
      );
      return null;
    }
    return { path: ast.name, file, source, ast, checked: null };
  }

  /** Loads the user modules `m` imports, depth first; std modules need no file. */
  loadImports(m: LoadedModule, stack: string[]): void {
    const { modules: std } = stdInterfaces();
    for (const imp of m.ast.imports) {
      // Diagnostics name the path as the user wrote it, legacy prefix included.
      const written = imp.path;
      if (imp.path.startsWith(LEGACY_STDLIB_PREFIX)) {
        imp.path = imp.path.slice('stdlib/'.length);
        if (!this.warnings.includes(LEGACY_STDLIB_WARNING))
          this.warnings.push(LEGACY_STDLIB_WARNING);
      }
      if (imp.path.startsWith('std/')) {
        if (!std.has(imp.path)) {
          this.syntax(
            m.file,
            new CompileError(
              'IMP010',
              `unknown module ${written}`,
              imp.pos,
              `the embedded toolchain provides: ${[...std.keys()].sort().join(', ')}`,
            ),
          );
        }
        continue;
      }
      if (stack.includes(imp.path)) {
        this.syntax(
          m.file,
          new CompileError('IMP012', `import cycle: ${[...stack, imp.path].join(' -> ')}`, imp.pos),
        );
        continue;
      }
      if (this.byPath.has(imp.path)) continue;
      const file = moduleFile(imp.path);
      let source: string;
      try {
        source = this.reader.read(file);
      } catch (e) {
        if (!(e instanceof ReadFailure)) throw e;
        this.byPath.set(imp.path, null);
        this.syntax(
          m.file,
          new CompileError('IMP010', `unknown module ${imp.path}: ${e.message}`, imp.pos),
        );
        continue;
      }
      const dep = this.parse(file, source, imp.path);
      this.byPath.set(imp.path, dep);
      if (dep) {
        this.loadImports(dep, [...stack, imp.path]);
      }
    }
    this.order.push(m);
  }

  typeCheck(): void {
    const { modules: std } = stdInterfaces();
    const ifaces = new Map<string, ModuleInterface>(std);
    for (const m of this.order) {
      const checked = checkModule(m.ast, ifaces);
      m.checked = checked;
      ifaces.set(m.path, checked.iface);
      for (const { error, decl } of checked.errors) {
        const pos: Pos = error.pos ?? { line: 1, column: 1 };
        const message =
          decl < 0 || error.code.startsWith('IMP')
            ? `${at(m.file, pos)}: ${error.detail}`
            : `type error in ${m.path} (decl ${decl}): at ${at(m.file, pos)}: ${error.detail}`;
        this.diagnostics.push(diagnostic(error.code, message, m.file, pos, error.suggestion));
      }
    }
  }

  effectCheck(): void {
    for (const m of this.order) {
      for (const v of checkEffects(funcDecls(m.ast), m.checked!.scope)) {
        this.diagnostics.push(
          diagnostic('ERROR', effectErrorText(m.path, v), m.file, v.pos, v.suggested),
        );
      }
    }
  }
}
