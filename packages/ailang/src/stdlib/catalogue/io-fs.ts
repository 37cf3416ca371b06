import { area, type BuiltinSpec } from './area.js';

/**
 * std/io and std/fs (ailang.md §2.3). Raw names are the real registry's (`std/io.ail` wraps
 * `_io_println` and the rest; `std/fs.ail` wraps `_fs_readFile`, `_fs_writeFile` and
 * `_fs_exists` — the wrapper is `fileExists` because `exists` is a reserved word). The other fs
 * exports have no raw builtin the embedded registry can vouch for, so they are exports only.
 */
export const IO_FS: readonly BuiltinSpec[] = [
  ...area('std/io', [
    [
      'print',
      '_io_print',
      's',
      '(string) -> () ! {IO}',
      'Print a string to stdout without a newline',
    ],
    [
      'println',
      '_io_println',
      's',
      '(string) -> () ! {IO}',
      'Print a string to stdout with a newline',
    ],
    [
      'printErr',
      '_io_printErr',
      's',
      '(string) -> () ! {IO}',
      'Print a string to stderr without a newline',
    ],
    [
      'eprintln',
      '_io_eprintln',
      's',
      '(string) -> () ! {IO}',
      'Print a string to stderr with a newline',
    ],
    [
      'readLine',
      '_io_readLine',
      '',
      '() -> string ! {IO}',
      'Read one line of stdin without its line ending; "" at end of input',
    ],
    [
      'readLineOpt',
      null,
      '',
      '() -> Option[string] ! {IO}',
      'Read one line of stdin; None at end of input',
    ],
    [
      'flush',
      '_io_flush',
      '',
      '() -> () ! {IO}',
      'Flush stdout (a no-op: output is never buffered here)',
    ],
    [
      'exit',
      '_io_exit',
      'code',
      '(int) -> () ! {IO}',
      'Stop the program with an exit code (taken modulo 256)',
    ],
  ]),
  ...area('std/fs', [
    [
      'readFile',
      '_fs_readFile',
      'path',
      '(string) -> string ! {FS}',
      'Read a whole file inside the sandbox as text',
    ],
    [
      'writeFile',
      '_fs_writeFile',
      'path,content',
      '(string, string) -> () ! {FS}',
      'Create or truncate a file inside the sandbox and write text',
    ],
    [
      'fileExists',
      '_fs_exists',
      'path',
      '(string) -> bool ! {FS}',
      'True when a file or directory exists inside the sandbox',
    ],
    [
      'appendFile',
      null,
      'path,content',
      '(string, string) -> () ! {FS}',
      'Append text to a file inside the sandbox, creating it',
    ],
    [
      'listDir',
      null,
      'path',
      '(string) -> [string] ! {FS}',
      'Names in a directory inside the sandbox, sorted',
    ],
    [
      'mkdir',
      null,
      'path',
      '(string) -> () ! {FS}',
      'Create one directory inside the sandbox (the parent must exist)',
    ],
    [
      'mkdirAll',
      null,
      'path',
      '(string) -> () ! {FS}',
      'Create a directory and its parents inside the sandbox',
    ],
    [
      'isDir',
      null,
      'path',
      '(string) -> bool ! {FS}',
      'True when the path is a directory inside the sandbox',
    ],
    [
      'isFile',
      null,
      'path',
      '(string) -> bool ! {FS}',
      'True when the path is a regular file inside the sandbox',
    ],
    [
      'removeFile',
      null,
      'path',
      '(string) -> () ! {FS}',
      'Remove a file or an empty directory inside the sandbox',
    ],
    [
      'renameFile',
      null,
      'oldPath,newPath',
      '(string, string) -> () ! {FS}',
      'Rename a file; both paths stay inside the sandbox',
    ],
    [
      'readFileResult',
      null,
      'path',
      '(string) -> Result[string, string] ! {FS}',
      'readFile, with I/O failures as Err(message)',
    ],
    [
      'writeFileResult',
      null,
      'path,content',
      '(string, string) -> Result[(), string] ! {FS}',
      'writeFile, with I/O failures as Err(message)',
    ],
    [
      'appendFileResult',
      null,
      'path,content',
      '(string, string) -> Result[(), string] ! {FS}',
      'appendFile, with I/O failures as Err(message)',
    ],
    [
      'removeFileResult',
      null,
      'path',
      '(string) -> Result[(), string] ! {FS}',
      'removeFile, with I/O failures as Err(message)',
    ],
    [
      'mkdirAllResult',
      null,
      'path',
      '(string) -> Result[(), string] ! {FS}',
      'mkdirAll, with I/O failures as Err(message)',
    ],
  ]),
];
