import { episodeOfInvocationId } from './ids.js';
import { confinementOf, READ_ALL, type ReadResource, type ReadScope } from './visibility.js';

describe('confinementOf (DESIGN.md §3 "Who may read and write what")', () => {
  const ep1: ReadScope = { kind: 'episode', episodeId: 'ep1' };
  const rows: Array<[string, ReadScope, ReadResource, string | null]> = [
    ['the operator reads every object', READ_ALL, 'object', null],
    ['the operator reads every receipt', READ_ALL, 'receipt', null],
    ["a session's objects are confined to its episode", ep1, 'object', 'ep1'],
    ["a session's receipts are confined to its episode", ep1, 'receipt', 'ep1'],
    ['entry headers and hashes are the shared skeleton', ep1, 'entry', null],
    ['world rows are the shared skeleton', ep1, 'world', null],
    ['the head is the shared skeleton', ep1, 'head', null],
    ['registry heads are the shared skeleton', ep1, 'registry', null],
    ["the operator reads every episode's spend", READ_ALL, 'spend', null],
    ["a session's spend read is confined to its episode", ep1, 'spend', 'ep1'],
  ];
  it.each(rows)('%s', (_row, scope, resource, expected) => {
    expect(confinementOf(scope, resource)).toBe(expected);
  });
});

describe('episodeOfInvocationId (world-spec §10; DESIGN.md §3)', () => {
  it.each([
    ['a2a:ep1:task-1', 'ep1'],
    ['mcp:ep-2:abc', 'ep-2'],
    ['rest:ep1:deploy:1', 'ep1'],
    ['rest:demo-1', null],
    ['rest:Bad:x', null],
    ['effect:ep1:0', null],
    ['mcp:ep1', null],
  ])('%s → %p', (id, expected) => {
    expect(episodeOfInvocationId(id)).toBe(expected);
  });
});
