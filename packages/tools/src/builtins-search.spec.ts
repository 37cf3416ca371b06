import {
  filterBuiltins,
  finishBuiltinsSearch,
  parseBuiltinsInventory,
  builtinsSearch,
} from './builtins-search.js';
import type { EffectResult } from './types.js';

const refusal = (refused: string) => ({
  plan: 'world/effect-plan/v1',
  effects: [],
  finish: false,
  result: { ok: false, refused },
});
const LIST_PLAN = {
  plan: 'world/effect-plan/v1',
  effects: [
    {
      id: 'e1',
      effect: 'Ailang.Discover',
      scope: 'worktree',
      cost: 1,
      payload: { op: 'builtins_list' },
    },
  ],
  finish: true,
  result: null,
};

describe('builtins-search plan (world-spec §3.6)', () => {
  it.each([
    ['§3.6: no filter', {}, LIST_PLAN],
    [
      '§3.6: the filters stay out of the payload',
      { query: 'println', module: 'std/io' },
      LIST_PLAN,
    ],
    [
      '§3.6: an unknown key',
      { query: 'x', limit: 5 },
      refusal('unknown argument "limit"; builtins-search admits only: query, module'),
    ],
    ['§3.6: query not a string', { query: 1 }, refusal('argument "query" must be a string')],
    [
      '§3.6: module not a string',
      { module: ['std/io'] },
      refusal('argument "module" must be a string'),
    ],
    [
      '§3.0 order: query before module',
      { module: 1, query: 2 },
      refusal('argument "query" must be a string'),
    ],
    ['§3.0 step 4', [], refusal('arguments must be a JSON object')],
  ])('%s', (_name, args, expected) => {
    expect(builtinsSearch.plan(args)).toEqual(expected);
  });
});

/** The binary's text form (ailang.md §1.7): header, blank line, names padded to 30 columns. */
const line = (name: string, effect: string, module: string) =>
  `  ${name.padEnd(30)} [${effect}] ${module}`;
const INVENTORY_LINES = [
  line('_fs_readFile', 'fs', 'std/fs'),
  line('_io_eprintln', 'io', 'std/io'),
  line('_io_println', 'io', 'std/io'),
  line('_list_length', 'pure', 'std/list'),
  line('_net_httpGet', 'net', 'std/net'),
];
const INVENTORY = `Total: 5 builtins\n\n${INVENTORY_LINES.join('\n')}\n`;
const ENTRIES = [
  { name: '_fs_readFile', module: 'std/fs', effect: 'fs' },
  { name: '_io_eprintln', module: 'std/io', effect: 'io' },
  { name: '_io_println', module: 'std/io', effect: 'io' },
  { name: '_list_length', module: 'std/list', effect: 'pure' },
  { name: '_net_httpGet', module: 'std/net', effect: 'net' },
];

describe('parseBuiltinsInventory (ailang.md §1.7, world-internals §12 incident 22)', () => {
  it.each([
    ['the binary form', INVENTORY, { entries: ENTRIES }],
    [
      'the unpadded form `name [effect] module`, an empty effect',
      'Total: 2 builtins\nprint [io] std/io\nmagic [] std/x',
      {
        entries: [
          { name: 'print', module: 'std/io', effect: 'io' },
          { name: 'magic', module: 'std/x', effect: '' },
        ],
      },
    ],
    ['an empty inventory', 'Total: 0 builtins\n', { entries: [] }],
    ['no header', INVENTORY_LINES.join('\n'), { unusable: 'builtins_list returned no inventory' }],
    ['empty stdout', '', { unusable: 'builtins_list returned no inventory' }],
    [
      '"No builtins registered"',
      'No builtins registered\n',
      { unusable: 'builtins_list returned no inventory' },
    ],
    [
      'a header with a leading zero',
      'Total: 05 builtins\n',
      { unusable: 'builtins_list returned no inventory' },
    ],
    [
      'truncated at a line end',
      `Total: 348 builtins\n\n${INVENTORY_LINES.join('\n')}\n`,
      {
        unusable:
          'builtins_list inventory is truncated: its header says 348 builtins but 5 were listed',
      },
    ],
    [
      'truncated inside a line',
      `Total: 5 builtins\n\n${INVENTORY_LINES.slice(0, 4).join('\n')}\n  _net_ht`,
      { unusable: 'builtins_list inventory line 7 is unparseable: "  _net_ht"' },
    ],
    [
      'more lines than the header says',
      `Total: 4 builtins\n\n${INVENTORY_LINES.join('\n')}\n`,
      {
        unusable:
          'builtins_list inventory is truncated: its header says 4 builtins but 5 were listed',
      },
    ],
  ])('%s', (_name, stdout, expected) => {
    expect(parseBuiltinsInventory(stdout)).toEqual(expected);
  });
});

describe('filterBuiltins (world-spec §3.6)', () => {
  const many = Array.from({ length: 12 }, (_, i) => ({
    name: `_io_p${i}`,
    module: 'std/io',
    effect: 'io',
  }));
  it.each([
    ['no filters: everything', '', '', ENTRIES],
    ['query in the name, case-insensitive', 'PRINTLN', '', [ENTRIES[1], ENTRIES[2]]],
    ['query in the module', 'std/net', '', [ENTRIES[4]]],
    ['query in the effect', 'pure', '', [ENTRIES[3]]],
    ['module contains, case-insensitive', '', 'STD/IO', [ENTRIES[1], ENTRIES[2]]],
    ['module and query together', 'e', 'std/io', [ENTRIES[1]]],
    ['nothing matches', 'zzz', '', []],
  ])('%s', (_name, query, module, expected) => {
    expect(filterBuiltins(ENTRIES, query, module)).toEqual(expected);
  });

  it('caps a query at 10 matches, in inventory order', () => {
    expect(filterBuiltins(many, 'io', '')).toEqual(many.slice(0, 10));
  });

  it('does not cap a module filter alone', () => {
    expect(filterBuiltins(many, '', 'std/io')).toEqual(many);
  });
});

const result = (
  status: EffectResult['status'],
  output: Record<string, unknown> | null,
): EffectResult => ({
  id: 'e1',
  effect: 'Ailang.Discover',
  status,
  record: `sha256:${'cd'.repeat(32)}`,
  output,
});
const listed = (stdout: string, stderr = '') => [
  result('ok', { ok: true, argv: ['builtins', 'list'], exit_code: 0, stdout, stderr }),
];

describe('builtins-search finish (world-spec §3.6, world-internals §8.2)', () => {
  it.each([
    [
      '§3.6 example: {"query":"println"}',
      { query: 'println' },
      listed(INVENTORY),
      {
        count: 2,
        matches: [
          { name: '_io_eprintln', module: 'std/io', effect: 'io' },
          { name: '_io_println', module: 'std/io', effect: 'io' },
        ],
      },
    ],
    ['§3.6: no filters: the full list', {}, listed(INVENTORY), { count: 5, matches: ENTRIES }],
    [
      '§3.6: module filter',
      { module: 'std/fs' },
      listed(INVENTORY),
      { count: 1, matches: [ENTRIES[0]] },
    ],
    [
      '§3.6: no match is an empty, complete answer',
      { query: 'zzz' },
      listed(INVENTORY),
      { count: 0, matches: [] },
    ],
    [
      '§3.6: a truncated inventory is refused, never an empty list',
      { query: 'zzz' },
      listed(`Total: 348 builtins\n\n${INVENTORY_LINES.join('\n')}\n`, 'cut\n'),
      {
        ok: false,
        status: 'ok',
        refused:
          'builtins_list inventory is truncated: its header says 348 builtins but 5 were listed; stderr: cut\n',
      },
    ],
    [
      '§3.6: an unparseable inventory',
      {},
      listed('{"count":348,"builtins":[]}'),
      { ok: false, status: 'ok', refused: 'builtins_list returned no inventory; stderr: ' },
    ],
    [
      '§3.6: the handler refusal passes through',
      {},
      [
        result('ok', {
          ok: false,
          refused: 'op builtins_list does not admit flag --zz (admitted: --json)',
        }),
      ],
      {
        ok: false,
        status: 'ok',
        refused: 'op builtins_list does not admit flag --zz (admitted: --json)',
      },
    ],
    [
      '§4.4 (D): a denied effect',
      { query: 'x' },
      [result('denied', null)],
      { ok: false, status: 'denied', refused: 'the Ailang.Discover effect ended denied' },
    ],
    [
      '§4.4 (E): a failed effect',
      {},
      [result('failed', null)],
      { ok: false, status: 'failed', refused: 'the Ailang.Discover effect ended failed' },
    ],
    [
      '§3.4 [code]: no output',
      {},
      [result('ok', null)],
      { ok: false, status: 'ok', refused: 'the effect result carries no output' },
    ],
    [
      '§3.4 [code]: two results',
      {},
      [...listed(INVENTORY), ...listed(INVENTORY)],
      { ok: false, status: '', refused: 'expected exactly one effect result' },
    ],
  ])('%s', (_name, args, results, expected) => {
    expect(finishBuiltinsSearch(args, results)).toEqual(expected);
  });
});
