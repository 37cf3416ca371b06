import { createHash } from 'node:crypto';
import { BadRequestError } from './errors.js';
import {
  credentialIdOf,
  formatGrant,
  invocationIdOf,
  parseBearer,
  parseGrant,
  writtenByFor,
  COORDINATOR_INVOCATION_ID,
  EPISODE_ID,
  EPISODE_ID_RULE,
  REST_INVOCATION_ID,
  TASK_ID,
} from './ids.js';

const TOKEN = 'ab'.repeat(32);

describe('parseGrant (world-spec §2.7: EFFECT=SCOPE:BUDGET, budget is the last segment)', () => {
  it.each([
    ['Workspace.Read=worktree:50', { effect: 'Workspace.Read', scope: 'worktree', budget: 50 }],
    ['Workspace.Read=worktree:0', { effect: 'Workspace.Read', scope: 'worktree', budget: 0 }],
    [
      'FS.Read=/abs/file:with:colons:3',
      { effect: 'FS.Read', scope: '/abs/file:with:colons', budget: 3 },
    ],
  ])('parses %s', (text, grant) => {
    expect(parseGrant(text)).toEqual(grant);
    expect(formatGrant(grant)).toBe(text);
  });

  it.each([
    ['=worktree:5', 'has no effect name'],
    ['Workspace.Read=worktree', 'has no budget'],
    ['Workspace.Read:5', 'has no effect name'],
    ['Work space=worktree:5', 'has a malformed effect name'],
    ['Workspace.Read=:5', 'has an empty scope'],
    ['Workspace.Read=worktree:-1', 'has a budget that is not a whole number'],
    ['Workspace.Read=worktree:05', 'has a budget that is not a whole number'],
    ['Workspace.Read=worktree:1.5', 'has a budget that is not a whole number'],
  ])('refuses %s: %s', (text, why) => {
    expect(() => parseGrant(text)).toThrow(
      new BadRequestError(`grant "${text}" ${why}; expected EFFECT=SCOPE:BUDGET`),
    );
  });
});

describe('parseBearer and credential ids (world-spec §2.2, §6.1)', () => {
  it.each([
    [undefined, { kind: 'absent' }],
    ['', { kind: 'absent' }],
    ['Bearer xyz', { kind: 'malformed' }],
    [`Bearer ${TOKEN.toUpperCase()}`, { kind: 'malformed' }],
    [`Basic ${TOKEN}`, { kind: 'malformed' }],
    [`Bearer ${TOKEN} extra`, { kind: 'malformed' }],
    [`Bearer ${TOKEN}`, { kind: 'token', token: TOKEN }],
    [`bearer ${TOKEN}`, { kind: 'token', token: TOKEN }],
  ])('reads %j', (header, parsed) => {
    expect(parseBearer(header)).toEqual(parsed);
  });

  it('keeps only the sha256 of the token text as the credential id', () => {
    expect(credentialIdOf(TOKEN)).toBe(createHash('sha256').update(TOKEN).digest('hex'));
  });
});

describe('invocation ids (world-spec §10, DESIGN.md §7.4)', () => {
  it('tags coordinator invocations with their surface', () => {
    expect(invocationIdOf('mcp', 'ep1', 'k-1')).toBe('mcp:ep1:k-1');
    expect(invocationIdOf('a2a', 'ep1', 't1')).toBe('a2a:ep1:t1');
    expect(writtenByFor('mcp')).toBe('coordinator:mcp');
    expect(COORDINATOR_INVOCATION_ID.test('a2a:ep1:t1')).toBe(true);
    expect(COORDINATOR_INVOCATION_ID.test('rest:ep1:t1')).toBe(false);
    expect(REST_INVOCATION_ID.test('rest:demo-1')).toBe(true);
    expect(REST_INVOCATION_ID.test('a2a:demo-1')).toBe(false);
  });
});

describe('the id grammars, each written once (world-spec §2.1, §6.5, §10)', () => {
  it('states the episode rule as every refusal quotes it', () => {
    expect(EPISODE_ID_RULE).toBe('must match ^[a-z0-9][a-z0-9-]{0,63}$');
  });

  it.each([
    ['a', true],
    ['ep-1', true],
    ['0' + 'a'.repeat(63), true],
    ['0' + 'a'.repeat(64), false],
    ['-ep', false],
    ['Ep1', false],
    ['ep_1', false],
    ['', false],
  ])('episode id %j matches: %s', (id, ok) => {
    expect(EPISODE_ID.test(id)).toBe(ok);
  });

  it.each([
    ['x', true],
    ['A.b_c-9', true],
    ['t'.repeat(128), true],
    ['t'.repeat(129), false],
    ['a/b', false],
    ['', false],
  ])('task id %j matches: %s', (id, ok) => {
    expect(TASK_ID.test(id)).toBe(ok);
  });

  it.each([
    ['mcp:ep1:t1', true],
    ['a2a:ep-1:A.b_c', true],
    [`mcp:${'e'.repeat(64)}:${'t'.repeat(128)}`, true],
    [`mcp:${'e'.repeat(65)}:t`, false],
    [`mcp:ep:${'t'.repeat(129)}`, false],
    ['mcp:Ep:t', false],
    ['rest:ep:t', false],
    ['mcp:ep:a/b', false],
  ])('coordinator invocation id %j matches: %s', (id, ok) => {
    expect(COORDINATOR_INVOCATION_ID.test(id)).toBe(ok);
  });
});
