import { checkSources } from '../../test/helpers/programs.js';

/**
 * Large programs: the checker's work grows linearly with the program (no copied scope per let,
 * no chain of bound type variables per list element), and a tree deeper than the thread's
 * stack is the LIMIT001 diagnostic, never a crash.
 */

const program = (name: string, body: string): string =>
  [
    `module ${name}`,
    'import std/io (println)',
    'import std/list (length)',
    'export func main() -> () ! {IO} {',
    body,
    '}',
  ].join('\n');

describe('large sources', () => {
  it('refuses a sum of 30,000 terms with LIMIT001 naming the stack that ran out', () => {
    const terms = Array.from({ length: 30_000 }, () => '1').join(' + ');
    const r = checkSources(
      { 'deep.ail': program('deep', `  println(show(${terms}))`) },
      'deep.ail',
    );
    expect(r.diagnostics).toEqual([
      {
        code: 'LIMIT001',
        message:
          "the program nests too deeply for the embedded AILANG checker: it ran out of call stack (the calling thread's default stack)",
        file: 'deep.ail',
        suggestion:
          'split the deep expression into let bindings or helper functions (a long `a + b + …` chain or deeply nested calls)',
      },
    ]);
  });
});
