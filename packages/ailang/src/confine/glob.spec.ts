import { matchDenyPattern, matchSegment } from './glob.js';

describe('matchDenyPattern (world-spec §8.2 deny list, case-folded)', () => {
  it.each([
    ['.github/**', '.github/workflows/ci.yml', true],
    ['.github/**', '.GITHUB/workflows/ci.yml', true],
    ['.claude/**', '.CLAUDE/settings.json', true],
    ['.pi/**', '.Pi/x', true],
    ['.ailang/**', '.AILANG/cache/x', true],
    ['.gitmodules', '.GITMODULES', true],
    ['.gitattributes', '.GitAttributes', true],
    ['.gitmodules', '.gitmodule\u017f', true],
    ['.github/**', 'src/.github/x', false],
    ['.github/**', '.githubx/y', false],
    ['.gitmodules', 'sub/.gitmodules', false],
    ['src/*.ail', 'src/a.ail', true],
    ['src/*.ail', 'src/sub/a.ail', false],
    ['**/secret.txt', 'a/b/secret.txt', true],
    ['**/secret.txt', 'secret.txt', true],
    ['.[gG][iI][tT][mM][oO][dD][uU][lL][eE][sſS]', '.gitmodules', true],
  ])('%s vs %s → %p', (pattern, path, expected) => {
    expect(matchDenyPattern(pattern, path)).toBe(expected);
  });
});

describe('matchSegment (Go path.Match)', () => {
  it.each([
    ['a?c', 'abc', true],
    ['a*', 'abc', true],
    ['*c', 'abc', true],
    ['[a-c]x', 'bx', true],
    ['[^a-c]x', 'bx', false],
    ['[!a-c]x', 'dx', true],
    ['\\*', '*', true],
    ['\\*', 'a', false],
    ['[a-', 'a', false],
  ])('%s vs %s → %p', (pattern, name, expected) => {
    expect(matchSegment(pattern, name)).toBe(expected);
  });
});
