import { tempWorktree } from '../../test/helpers/programs.js';
import { CLI_OPS, FMT_WRITE_REFUSAL, cliArgv, validateCliRequest } from './ops.js';

describe('validateCliRequest (world-spec §3.8; world-internals §8.2 refused before exec)', () => {
  const wt = tempWorktree({ 'a.ail': 'module a\n' });
  afterAll(() => wt.cleanup());

  it('admits the 20 ops of the tool binary', () => {
    expect(Object.keys(CLI_OPS).length).toBe(20);
  });

  it.each([
    ['the op is required', {}, 'missing required argument "op"'],
    [
      'an op outside the list',
      { op: 'run' },
      /^op "run" is not an ailang-cli op; admitted: agent_prompt, ai_check, /,
    ],
    [
      'a case-folded alias of flags',
      { op: 'check', path: 'a.ail', FLAGS: { write: '' } },
      'key "FLAGS" is a case-folded alias of "flags"; send "flags" exactly',
    ],
    [
      'a case-folded alias of op',
      { OP: 'check' },
      'key "OP" is a case-folded alias of "op"; send "op" exactly',
    ],
    [
      'an alias using the long s',
      { op: 'check', flagſ: {} },
      'key "flagſ" is a case-folded alias of "flags"; send "flags" exactly',
    ],
    [
      'fmt with a write flag, whatever its value (incident 20)',
      { op: 'fmt', path: 'a.ail', flags: { write: 'false' } },
      FMT_WRITE_REFUSAL,
    ],
    [
      'fmt with a case variant of write',
      { op: 'fmt', path: 'a.ail', flags: { WRITE: '' } },
      FMT_WRITE_REFUSAL,
    ],
    [
      'flags that are not an object of strings',
      { op: 'check', path: 'a.ail', flags: { json: true } },
      'argument "flags" must be an object of string values',
    ],
    [
      'flags given as an array',
      { op: 'check', path: 'a.ail', flags: ['json'] },
      'argument "flags" must be an object of string values',
    ],
    [
      'a flag the op does not admit (world-spec §3.8 pattern)',
      { op: 'check', path: 'a.ail', flags: { zz: '' } },
      'op check does not admit flag --zz (admitted: --json --quiet --strict-syntax)',
    ],
    [
      'a flag on an op without flags',
      { op: 'version', flags: { json: '' } },
      'op version does not admit flag --json (admitted: none)',
    ],
    ['a required field missing', { op: 'iface' }, 'op iface needs "module"'],
    [
      'a path escaping the worktree',
      { op: 'check', path: '/etc/hosts' },
      'check /etc/hosts: path "/etc/hosts" escapes sandbox "<wt>"',
    ],
    [
      'a flag-like path (incident 21)',
      { op: 'check', path: '-policy.ail' },
      'check -policy.ail: path "-policy.ail" looks like a flag',
    ],
    [
      'a package path escaping',
      { op: 'test', package: '../x' },
      'test ../x: path "../x" escapes sandbox "<wt>"',
    ],
  ])('refuses %s', (_name, payload, refusal) => {
    const r = validateCliRequest(payload as Record<string, unknown>, wt.dir);
    expect('refused' in r).toBe(true);
    const text = (r as { refused: string }).refused;
    if (refusal instanceof RegExp) expect(text).toMatch(refusal);
    else expect(text).toBe(refusal.replace('<wt>', wt.dir));
  });

  it('re-encodes exactly the checked keys, dropping others', () => {
    expect(
      validateCliRequest(
        { op: 'iface', module: 'std/io', flags: { compact: '' }, path: 'a.ail', extra: 1 },
        wt.dir,
      ),
    ).toEqual({
      op: 'iface',
      module: 'std/io',
      flags: { compact: '' },
    });
  });

  it("limits ops to the allowlist it is given (the binary summary's cli list)", () => {
    expect(validateCliRequest({ op: 'version' }, wt.dir, ['check'])).toEqual({
      refused: 'op "version" is not an ailang-cli op; admitted: check',
    });
  });
});

describe('cliArgv', () => {
  it.each([
    [{ op: 'iface', module: 'std/io', flags: { compact: '' } }, ['iface', '--compact', 'std/io']],
    [
      { op: 'docs_search', query: 'fold', flags: { limit: '5', json: '' } },
      ['docs', 'search', '--json', '--limit=5', 'fold'],
    ],
    [{ op: 'check', path: 'a.ail', flags: {} }, ['check', '--', 'a.ail']],
    [
      { op: 'policy_check', path: 'a.ail', flags: {} },
      ['policy-check', '--policy', '/p.toml', '--', 'a.ail'],
    ],
  ])('%j → %j (world-spec §3.8 example argv)', (req, argv) => {
    expect(cliArgv(req, '/p.toml')).toEqual(argv);
  });
});
