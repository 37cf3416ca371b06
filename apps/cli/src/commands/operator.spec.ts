import { checkEpisodeId, parseGrants, parseTtl } from './operator.js';
import { CliError } from './util.js';

describe('parseGrants (world-spec §7.6: --grant EFFECT=SCOPE:BUDGET, repeatable)', () => {
  it('parses each grant; a scope may hold a colon', () => {
    expect(parseGrants(['Workspace.Read=worktree:50', 'Net=host:80:3'])).toEqual([
      { effect: 'Workspace.Read', scope: 'worktree', budget: 50 },
      { effect: 'Net', scope: 'host:80', budget: 3 },
    ]);
  });
  it.each([
    ['§7.4 no grant', [], 'give at least one --grant EFFECT=SCOPE:BUDGET'],
    [
      '§7.6 no effect name',
      ['=worktree:5'],
      'grant "=worktree:5" has no effect name; expected EFFECT=SCOPE:BUDGET',
    ],
    [
      '§7.6 no budget',
      ['Workspace.Read=worktree'],
      'grant "Workspace.Read=worktree" has no budget; expected EFFECT=SCOPE:BUDGET',
    ],
  ])('%s is a usage error', (_row, texts, message) =>
    expect(() => parseGrants(texts)).toThrow(new CliError(message, 2)),
  );
});

describe('parseTtl (world-spec §7.4: whole seconds)', () => {
  it.each([
    [undefined, undefined],
    ['3600', 3600],
  ])('%s → %s', (text, n) => expect(parseTtl(text)).toBe(n));
  it.each(['0', '-1', '1.5', '1h'])('refuses %s', (text) =>
    expect(() => parseTtl(text)).toThrow(
      new CliError(`--ttl "${text}" must be a whole positive number of seconds`, 2),
    ),
  );
});

describe('checkEpisodeId (world-spec §10)', () => {
  it.each(['ep1', 'a', 'x-2'])('accepts %s', (id) => expect(checkEpisodeId(id)).toBe(id));
  it.each(['Ep1', '-x', '', 'a'.repeat(65)])('refuses %s', (id) =>
    expect(() => checkEpisodeId(id)).toThrow(
      new CliError(`episode id "${id}" must match ^[a-z0-9][a-z0-9-]{0,63}$`, 2),
    ),
  );
});
