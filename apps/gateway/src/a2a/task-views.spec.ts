import { Task } from '@a2a-js/sdk';
import { canonicalBytes, encodeBase64, refOf } from '@world/canonical';
import { completedTask, taskOfInvocation, tasksSendResultText } from './task-views.js';

const WORLD = `sha256:${'a'.repeat(64)}` as const;
// Keys JSON.parse would reorder ("10" before "2" in canonical order, after it in a JS object)
// and a number form: the answer must carry the committed bytes, not a re-serialisation.
const OUTPUT_TEXT =
  '{"10":"x","2":"y","n":1e+21,"world":{"effects":[],"plan":"sha256:' + 'f'.repeat(64) + '"}}';
const COMMITTED = {
  invocationId: 'a2a:ep1:t1',
  outputText: OUTPUT_TEXT,
  worldRef: WORLD,
  entryIndex: 3,
};

describe('tasksSendResultText: the world-spec §6.5 success body', () => {
  it('writes the committed output bytes verbatim inside the §6.5 shape', () => {
    expect(tasksSendResultText(1, 't1', COMMITTED)).toBe(
      `{"jsonrpc":"2.0","id":1,"result":{"id":"t1","status":{"state":"completed"},` +
        `"artifacts":[{"parts":[{"type":"data","data":${OUTPUT_TEXT}}]}],` +
        `"metadata":{"invocation_id":"a2a:ep1:t1","world_ref":"${WORLD}","entry_index":3}}}`,
    );
  });

  const ids: Array<[string, unknown, string]> = [
    ['a string id', 'req-"1"', '"req-\\"1\\""'],
    ['a null id', null, 'null'],
    ['an absent id', undefined, 'null'],
    ['an object id, verbatim', { a: [1] }, '{"a":[1]}'],
  ];
  it.each(ids)('echoes %s (§6.5 "id echoed verbatim")', (_row, id, text) => {
    expect(
      tasksSendResultText(id, 't1', COMMITTED).startsWith(`{"jsonrpc":"2.0","id":${text},`),
    ).toBe(true);
  });
});

describe('the A2A 1.0 task of an invocation (ecosystem.md §2.3)', () => {
  const bytes = canonicalBytes({ ok: true, world: { effects: [], plan: WORLD } });
  const output = encodeBase64(bytes);

  it('renders a committed task as TASK_STATE_COMPLETED with the output as a data part', () => {
    expect(
      Task.toJSON(completedTask('t1', 'ep1', { ...COMMITTED, outputText: bytes.toString('utf8') })),
    ).toEqual({
      id: 't1',
      contextId: 'ep1',
      status: { state: 'TASK_STATE_COMPLETED' },
      artifacts: [
        {
          artifactId: 'output',
          parts: [
            {
              data: { ok: true, world: { effects: [], plan: WORLD } },
              mediaType: 'application/json',
            },
          ],
        },
      ],
      metadata: { invocation_id: 'a2a:ep1:t1', world_ref: WORLD, entry_index: 3 },
    });
  });

  const rows: Array<[string, Parameters<typeof taskOfInvocation>[2], unknown]> = [
    ['never claimed: not found', { state: 'none' }, undefined],
    [
      'committed: the committed output',
      { state: 'committed', entryIndex: 7, worldRef: WORLD, outputRef: refOf(bytes), output },
      {
        id: 't1',
        contextId: 'ep1',
        status: { state: 'TASK_STATE_COMPLETED' },
        artifacts: [
          {
            artifactId: 'output',
            parts: [
              {
                data: { ok: true, world: { effects: [], plan: WORLD } },
                mediaType: 'application/json',
              },
            ],
          },
        ],
        metadata: { invocation_id: 'a2a:ep1:t1', world_ref: WORLD, entry_index: 7 },
      },
    ],
    [
      'in flight: working',
      { state: 'in-flight' },
      {
        id: 't1',
        contextId: 'ep1',
        status: { state: 'TASK_STATE_WORKING' },
        metadata: { invocation_id: 'a2a:ep1:t1' },
      },
    ],
    [
      'ended after its effect may have run: failed, outcome not confirmed (never a new task id)',
      { state: 'ended', reason: 'uncertain' },
      {
        id: 't1',
        contextId: 'ep1',
        status: {
          state: 'TASK_STATE_FAILED',
          message: {
            messageId: 't1.status',
            contextId: 'ep1',
            taskId: 't1',
            role: 'ROLE_AGENT',
            parts: [{ text: 'invocation outcome is not confirmed; resend the same task id' }],
          },
        },
        metadata: { invocation_id: 'a2a:ep1:t1' },
      },
    ],
    [
      'lapsed: failed, outcome not confirmed',
      { state: 'ended', reason: 'lapsed' },
      {
        id: 't1',
        contextId: 'ep1',
        status: {
          state: 'TASK_STATE_FAILED',
          message: {
            messageId: 't1.status',
            contextId: 'ep1',
            taskId: 't1',
            role: 'ROLE_AGENT',
            parts: [{ text: 'invocation outcome is not confirmed; resend the same task id' }],
          },
        },
        metadata: { invocation_id: 'a2a:ep1:t1' },
      },
    ],
    [
      'abandoned (nothing ran): failed, with the §6.5 text',
      { state: 'ended', reason: 'abandoned' },
      {
        id: 't1',
        contextId: 'ep1',
        status: {
          state: 'TASK_STATE_FAILED',
          message: {
            messageId: 't1.status',
            contextId: 'ep1',
            taskId: 't1',
            role: 'ROLE_AGENT',
            parts: [{ text: 'invocation was not committed; send a new task id' }],
          },
        },
        metadata: { invocation_id: 'a2a:ep1:t1' },
      },
    ],
  ];
  it.each(rows)('%s', (_row, invocation, expected) => {
    const task = taskOfInvocation('t1', 'ep1', invocation);
    expect(task === undefined ? undefined : Task.toJSON(task)).toEqual(expected);
  });
});
