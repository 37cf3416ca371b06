/**
 * The row shape every catalogue file uses to declare its builtins, and the one function that turns
 * rows into registry entries (ailang.md §4: a registry entry has a module, a name, a signature and
 * an effect; the std modules' `export func` headers name what user code imports, §2.3).
 */

/** One registry entry. */
export interface BuiltinSpec {
  /**
   * The registry name. For a raw builtin it is the real registry's name (`_io_println`,
   * `intToFloat`, `add_Int`), listed by `builtins list` and callable from every module without an
   * import, as the real toolchain's `$builtin` module makes it. Other entries implement a std
   * export written in AILANG in the real library; their internal name `module.export` is no
   * identifier, so no program can name it.
   */
  name: string;
  /** the module the registry files it under (`std/io`, `std/prelude`, `$builtin`, `prelude`) */
  module: string;
  /** the public name the std module exports, or null for a raw builtin no module re-exports */
  export: string | null;
  /** whether `name` is a real registry name: listed and in scope everywhere */
  raw: boolean;
  /** parameter names, for docs and `builtins show` */
  params: string[];
  /** the type in AILANG syntax, with the effect row when effectful */
  type: string;
  /** one line of documentation */
  doc: string;
}

/**
 * A catalogue row: `[export, raw, params, type, doc]`. `export` null: a raw builtin no module
 * re-exports; `raw` null: an export without a raw builtin of the same signature (internal name).
 */
export type Row = [
  exportName: string | null,
  rawName: string | null,
  params: string,
  type: string,
  doc: string,
];

/**
 * Registry entries of one module's rows.
 * @param module the std module exporting the rows' public names
 * @param rows the rows
 * @param registryModule the module the real registry files the raw builtins under, when it
 *   differs from the exporting one (`$builtin` for the iterative list builtins)
 */
export function area(module: string, rows: Row[], registryModule: string = module): BuiltinSpec[] {
  return rows.map(([exp, raw, params, type, doc]) => {
    if (exp === null && raw === null) throw new Error(`${module}: a row needs a name`);
    return {
      name: raw ?? `${module}.${exp!}`,
      module: raw !== null ? registryModule : module,
      export: exp,
      raw: raw !== null,
      params: params === '' ? [] : params.split(','),
      type,
      doc,
    };
  });
}
