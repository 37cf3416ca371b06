import { makeJsonObject } from '@world/canonical';
import {
  BadRequestError,
  INVOCATION_INPUT_MAX_BYTES,
  TransitionPinMismatchError,
  UnknownToolError,
  deadlineTable,
  type ParsedRequestOf,
} from '@world/contracts';
import { ToolRegistry } from '../registry/tool-registry.js';
import { AdmitCall } from './admit-call.js';

const registry = new ToolRegistry();
const admit = new AdmitCall(registry, {
  replica: 'p1',
  caller: 'c0ffee00c0ffee00',
  deadlines: deadlineTable(20_000),
});
const READ = registry.get('ailang-read')!.descriptor;
const WRITE = registry.get('ailang-write')!.descriptor;
const NOW = 1_000;

function request(
  extra: Partial<ParsedRequestOf<'planner.invoke'>> = {},
): ParsedRequestOf<'planner.invoke'> {
  return {
    surface: 'a2a',
    session: {
      credentialId: 'c'.repeat(64),
      episodeId: 'ep1',
      grants: [{ effect: 'Workspace.Read', scope: 'worktree', budget: 5, expiresAt: 10_000 }],
      createdAt: 0,
      expiresAt: 10_000,
    },
    toolId: 'ailang-read',
    arguments: { path: 'hello.ail' },
    taskId: 't1',
    ...extra,
  };
}

describe('AdmitCall (world-spec §2.7 admission, §6.5 the transition_fn pin, §10 input limit)', () => {
  it('admits a visible tool with its pin, keyed by the caller’s task id', () => {
    const inv = admit.execute(request({ transitionFn: READ.transitionFn }), NOW);
    expect({ ...inv, tool: inv.tool.descriptor.id }).toEqual({
      req: request({ transitionFn: READ.transitionFn }),
      tool: 'ailang-read',
      invocationId: 'a2a:ep1:t1',
      keyed: true,
      writtenBy: 'coordinator:a2a',
      started: NOW,
      deadline: NOW + 20_000,
      input: makeJsonObject('world/invocation-input/v1', 'coordinator:a2a', {
        path: 'hello.ail',
      }),
    });
  });

  it('gives a call without a task id a fresh random one, not keyed', () => {
    const inv = admit.execute(request({ taskId: undefined, surface: 'mcp' }), NOW);
    expect([inv.keyed, /^mcp:ep1:[0-9a-f]+$/.test(inv.invocationId)]).toEqual([false, true]);
  });

  it.each([
    ['a tool that is not registered', { toolId: 'nope' }, new UnknownToolError('nope')],
    [
      'a registered tool outside the grants',
      { toolId: 'ailang-write' },
      new UnknownToolError('ailang-write'),
    ],
    [
      'a tool outside the grants before judging its pin',
      { toolId: 'ailang-write', transitionFn: READ.transitionFn },
      new UnknownToolError('ailang-write'),
    ],
    [
      'a pin naming another source',
      { transitionFn: WRITE.transitionFn },
      new TransitionPinMismatchError(),
    ],
    [
      'a pin naming another source before judging the arguments',
      { transitionFn: WRITE.transitionFn, arguments: { n: Number.NaN } },
      new TransitionPinMismatchError(),
    ],
    [
      'arguments that are not JSON',
      { arguments: { n: Number.NaN } },
      new BadRequestError('arguments are not JSON'),
    ],
    [
      'arguments over the limit',
      { arguments: { content: 'x'.repeat(INVOCATION_INPUT_MAX_BYTES) } },
      new BadRequestError(
        `arguments are ${INVOCATION_INPUT_MAX_BYTES + 14} bytes; the limit is ${INVOCATION_INPUT_MAX_BYTES}`,
      ),
    ],
  ] as const)('refuses %s', (_row, extra, error) => {
    expect(() => admit.execute(request(extra), NOW)).toThrow(error);
  });

  it('judges grants at the time the planner took the call', () => {
    expect(() => admit.execute(request(), 10_000)).toThrow(new UnknownToolError('ailang-read'));
  });
});
