import { CLI_OPS, ailangCli } from './ailang-cli.js';

const refusal = (refused: string) => ({
  plan: 'world/effect-plan/v1',
  effects: [],
  finish: false,
  result: { ok: false, refused },
});
const cli = (payload: Record<string, unknown>) => ({
  plan: 'world/effect-plan/v1',
  effects: [{ id: 'e1', effect: 'Ailang.CLI', scope: 'worktree', cost: 1, payload }],
  finish: false,
  result: null,
});
const PATH_RULE =
  'refused: it must be relative and non-empty, with no ".." segment and no leading "-"';
const ADMITS = 'ailang-cli admits only: op, path, module, query, package, flags';
const NOT_AN_OP = (op: string) =>
  `op "${op}" is not an ailang-cli op; reads, writes and edits have their own tools, and run is ailang-run`;
const FMT_WRITE =
  'op "fmt" flag "write" writes the worktree; ailang-cli never writes (fmt without it returns the formatted text; write it with ailang-write)';
const FLAGS = 'argument "flags" must be an object of string values';

describe('ailang-cli plan payloads (world-spec §3.8 [code])', () => {
  it.each([
    ['§3.8 example: iface', { op: 'iface', module: 'std/io', flags: { compact: '' } }],
    ['§3.8: check with flags', { op: 'check', path: 'world/contracts.ail', flags: { json: '' } }],
    ['§3.8: test with path and package', { op: 'test', path: 'a_test.ail', package: 'pkg' }],
    ['§3.8: a flag-less op', { op: 'version' }],
    ['§3.8: fmt without write', { op: 'fmt', path: 'hello.ail', flags: { check: '' } }],
    [
      "§3.8: per-op flag admission is the handler's",
      { op: 'check', path: 'a.ail', flags: { zz: '1' } },
    ],
  ])('%s: the arguments verbatim', (_name, args) => {
    const plan = ailangCli.plan(args);
    expect(plan).toEqual(cli(args));
    expect(Object.keys(plan.effects[0]?.payload ?? {})).toEqual(Object.keys(args));
  });

  it.each(CLI_OPS.map((op) => [op]))('admits op %s (§3.8 allowlist)', (op) => {
    expect(ailangCli.plan({ op })).toEqual(cli({ op }));
  });

  it('admits exactly the 20 ops of §3.8', () => {
    expect(CLI_OPS).toHaveLength(20);
  });

  it('copies the arguments: the plan does not alias the caller object', () => {
    const args = { op: 'iface', module: 'std/io', flags: { compact: '' } };
    const payload = ailangCli.plan(args).effects[0]?.payload;
    expect(payload).not.toBe(args);
    expect(payload?.flags).not.toBe(args.flags);
  });

  it('keeps an own "__proto__" flag key as data', () => {
    const args = JSON.parse('{"op":"check","path":"a.ail","flags":{"__proto__":"x"}}') as Record<
      string,
      unknown
    >;
    const flags = ailangCli.plan(args).effects[0]?.payload.flags as Record<string, unknown>;
    expect(Object.keys(flags)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(flags)).toBe(Object.prototype);
  });
});

describe('ailang-cli plan refusals (world-spec §3.8)', () => {
  it.each([
    ['§11 additional: op read', { op: 'read' }, NOT_AN_OP('read')],
    ['§3.8: op write', { op: 'write', path: 'a' }, NOT_AN_OP('write')],
    ['§3.8: op edit', { op: 'edit' }, NOT_AN_OP('edit')],
    ['§3.8: op run', { op: 'run', path: 'x.ail' }, NOT_AN_OP('run')],
    ['§3.8: op summary', { op: 'summary' }, NOT_AN_OP('summary')],
    ['§3.8: an empty op', { op: '' }, NOT_AN_OP('')],
    ['§3.8: ops are case-sensitive', { op: 'Check' }, NOT_AN_OP('Check')],
    [
      '§11 additional: fmt with write',
      { op: 'fmt', path: 'hello.ail', flags: { write: '' } },
      FMT_WRITE,
    ],
    [
      '§3.8: fmt with write, whatever its value',
      { op: 'fmt', path: 'hello.ail', flags: { write: 'false' } },
      FMT_WRITE,
    ],
    ['§3.8: flags an array', { op: 'examples_search', query: 'x', flags: ['--limit'] }, FLAGS],
    [
      '§3.8: a flag value not a string',
      { op: 'examples_search', query: 'x', flags: { limit: 2 } },
      FLAGS,
    ],
    ['§3.8: flags null', { op: 'version', flags: null }, FLAGS],
    ['§3.8: flags a string', { op: 'version', flags: '--json' }, FLAGS],
    ['§3.8: op missing', { path: 'a.ail' }, 'missing required argument "op"'],
    ['§3.0: op not a string', { op: 1 }, 'argument "op" must be a string'],
    ['§3.8: a path refusal', { op: 'check', path: '-x.ail' }, `path "-x.ail" ${PATH_RULE}`],
    [
      '§3.8: a package refusal',
      { op: 'test', package: '../other' },
      `path "../other" ${PATH_RULE}`,
    ],
    ['§3.0: path not a string', { op: 'check', path: 1 }, 'argument "path" must be a string'],
    ['§3.0: module not a string', { op: 'iface', module: 1 }, 'argument "module" must be a string'],
    [
      '§3.0: query not a string',
      { op: 'docs_search', query: {} },
      'argument "query" must be a string',
    ],
    [
      '§3.0: package not a string',
      { op: 'test', package: true },
      'argument "package" must be a string',
    ],
    [
      '§3.8: an unknown key',
      { op: 'check', path: 'a.ail', content: 'x' },
      `unknown argument "content"; ${ADMITS}`,
    ],
    [
      '§3.8: a case-folded alias is an unknown key',
      { op: 'fmt', FLAGS: { write: '' } },
      `unknown argument "FLAGS"; ${ADMITS}`,
    ],
  ])('%s', (_name, args, refused) => {
    expect(ailangCli.plan(args)).toEqual(refusal(refused));
  });

  it.each([
    ['unknown key before a missing op', { limit: 1 }, `unknown argument "limit"; ${ADMITS}`],
    ['op type before the allowlist', { op: 3, path: '/x' }, 'argument "op" must be a string'],
    ['the allowlist before path', { op: 'read', path: '/etc/hosts' }, NOT_AN_OP('read')],
    ['path before module', { op: 'check', path: '/x', module: 1 }, `path "/x" ${PATH_RULE}`],
    [
      'module before query',
      { op: 'iface', module: 1, query: 2 },
      'argument "module" must be a string',
    ],
    [
      'query before package',
      { op: 'test', query: 1, package: '../p' },
      'argument "query" must be a string',
    ],
    ['package before flags', { op: 'test', package: '-p', flags: [] }, `path "-p" ${PATH_RULE}`],
    ['flags before fmt+write', { op: 'fmt', flags: { write: '', n: 1 } }, FLAGS],
    [
      'fmt+write last: a bad path wins',
      { op: 'fmt', path: '/x', flags: { write: '' } },
      `path "/x" ${PATH_RULE}`,
    ],
  ])('§3.8 check order: %s', (_name, args, refused) => {
    expect(ailangCli.plan(args)).toEqual(refusal(refused));
  });
});
