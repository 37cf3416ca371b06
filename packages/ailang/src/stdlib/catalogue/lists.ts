import { area, type BuiltinSpec } from './area.js';

/**
 * std/list (ailang.md §2.3). `map`, `filter` and `foldl` are the real registry's iterative
 * builtins `_list_map`, `_list_filter`, `_list_foldl` (filed under `$builtin`); `length` and the
 * set operations wrap `_list_length`, `_list_member`, `_list_dedup`, …; `_list_nth` returns the
 * element itself (a runtime error out of range) where the export `nth` returns an Option. The
 * rest is written in AILANG in the real library: exports only.
 */
export const LISTS: readonly BuiltinSpec[] = [
  ...area(
    'std/list',
    [
      ['map', '_list_map', 'f,xs', '((a) -> b, [a]) -> [b]', 'Apply f to each element'],
      ['filter', '_list_filter', 'p,xs', '((a) -> bool, [a]) -> [a]', 'Elements for which p holds'],
      [
        'foldl',
        '_list_foldl',
        'f,acc,xs',
        '((b, a) -> b, b, [a]) -> b',
        'Left fold: f(f(acc, x1), x2)…',
      ],
    ],
    '$builtin',
  ),
  ...area('std/list', [
    ['length', '_list_length', 'xs', '([a]) -> int', 'Number of elements'],
    [
      null,
      '_list_nth',
      'xs,idx',
      '([a], int) -> a',
      'Element at a 0-based index; a runtime error out of range',
    ],
    [
      'member',
      '_list_member',
      'x,xs',
      '(a, [a]) -> bool',
      'True when x is an element (structural equality)',
    ],
    [
      'dedup',
      '_list_dedup',
      'xs',
      '([a]) -> [a]',
      'Drop repeated elements, keeping first occurrences',
    ],
    ['intersect', '_list_intersect', 'xs,ys', '([a], [a]) -> [a]', 'Elements of xs that are in ys'],
    [
      'union',
      '_list_union',
      'xs,ys',
      '([a], [a]) -> [a]',
      'xs then the elements of ys not in xs, without repeats',
    ],
    [
      'difference',
      '_list_difference',
      'xs,ys',
      '([a], [a]) -> [a]',
      'Elements of xs that are not in ys',
    ],
    ['head', null, 'xs', '([a]) -> Option[a]', 'First element, or None'],
    ['tail', null, 'xs', '([a]) -> [a]', 'All but the first element ([] for [])'],
    ['last', null, 'xs', '([a]) -> Option[a]', 'Last element, or None'],
    ['nth', null, 'xs,idx', '([a], int) -> Option[a]', 'Element at a 0-based index, or None'],
    ['reverse', null, 'xs', '([a]) -> [a]', 'Elements in reverse order'],
    ['concat', null, 'xs,ys', '([a], [a]) -> [a]', 'xs followed by ys'],
    ['take', null, 'n,xs', '(int, [a]) -> [a]', 'The first n elements'],
    ['drop', null, 'n,xs', '(int, [a]) -> [a]', 'All but the first n elements'],
    ['zip', null, 'xs,ys', '([a], [b]) -> [(a, b)]', 'Pairs of elements, up to the shorter list'],
    [
      'contains',
      null,
      'xs,x',
      '([a], a) -> bool',
      'True when x is an element (structural equality)',
    ],
    ['foldr', null, 'f,acc,xs', '((a, b) -> b, b, [a]) -> b', 'Right fold: f(x1, f(x2, … acc))'],
    [
      'sortBy',
      null,
      'cmp,xs',
      '((a, a) -> int, [a]) -> [a]',
      'Stable sort by a comparison returning <0, 0 or >0',
    ],
    ['any', null, 'p,xs', '((a) -> bool, [a]) -> bool', 'True when p holds for some element'],
    ['all', null, 'p,xs', '((a) -> bool, [a]) -> bool', 'True when p holds for every element'],
    [
      'findIndex',
      null,
      'p,xs',
      '((a) -> bool, [a]) -> Option[int]',
      'Index of the first element satisfying p',
    ],
    [
      'zipWith',
      null,
      'f,xs,ys',
      '((a, b) -> c, [a], [b]) -> [c]',
      'Combine two lists element-wise',
    ],
    ['flatMap', null, 'f,xs', '((a) -> [b], [a]) -> [b]', 'Map then flatten'],
    [
      'mapE',
      null,
      'f,xs',
      '((a) -> b ! {e}, [a]) -> [b] ! {e}',
      'map with an effectful function, left to right',
    ],
    [
      'filterE',
      null,
      'p,xs',
      '((a) -> bool ! {e}, [a]) -> [a] ! {e}',
      'filter with an effectful predicate, left to right',
    ],
    [
      'foldlE',
      null,
      'f,acc,xs',
      '((b, a) -> b ! {e}, b, [a]) -> b ! {e}',
      'foldl with an effectful function, left to right',
    ],
    [
      'flatMapE',
      null,
      'f,xs',
      '((a) -> [b] ! {e}, [a]) -> [b] ! {e}',
      'flatMap with an effectful function, left to right',
    ],
    [
      'forEachE',
      null,
      'f,xs',
      '((a) -> () ! {e}, [a]) -> () ! {e}',
      'Run an effectful function on each element',
    ],
  ]),
];
