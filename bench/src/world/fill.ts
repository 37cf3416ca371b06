/**
 * Grows the log fast for the growth scenarios (issue 7): entries are committed straight through
 * the ledger's subject (`ledger.commit`, an RpcClient on the run's NATS prefix), FILL_IN_FLIGHT
 * at a time, never through MCP. Each fill commit carries objects shaped like a real ailang-read
 * call's (input, plan, output with the 2 KiB content, invocation record, effect request, result
 * and record), so the objects and membership tables grow as they would under real traffic.
 */
import { makeJsonObject, toWireObject, type Ref } from '@world/canonical';
import { BROKER_PROVENANCE, SEMANTIC_IDS, writtenByFor } from '@world/contracts';
import type { RpcClient } from '@world/runtime';
import { FILE_NAME, FILL_IN_FLIGHT, HARNESS_REQUEST_MS } from '../config.js';
import { fileText } from '../fixture.js';

/** The episode id fill commits name in their invocation ids (no such episode exists). */
const FILL_EPISODE = 'bench-fill';

/** The planner's transition and interpreter refs of ailang-read, read once from the planner. */
async function toolIdentity(
  rpc: RpcClient,
): Promise<{ transitionFn: Ref; interpreter: Ref; semanticsEpoch: number }> {
  const now = Date.now();
  const { tools } = await rpc.request(
    'planner.tools.list',
    {
      grants: [
        {
          effect: 'Workspace.Read',
          scope: 'worktree',
          budget: 1,
          expiresAt: now + HARNESS_REQUEST_MS,
        },
      ],
      now,
    },
    { timeoutMs: HARNESS_REQUEST_MS },
  );
  const read = tools.find((t) => t.id === 'ailang-read');
  if (read === undefined) throw new Error('planner.tools.list did not list ailang-read');
  return {
    transitionFn: read.transitionFn,
    interpreter: read.interpreter,
    semanticsEpoch: read.semanticsEpoch,
  };
}

/** The `ledger.commit` request of fill commit number `n` (unique objects per n). */
function fillCommit(n: number, tag: string, identity: Awaited<ReturnType<typeof toolIdentity>>) {
  const writtenBy = writtenByFor('mcp');
  const invocationId = `mcp:${FILL_EPISODE}:${tag}-${n}`;
  const content = fileText();
  const input = makeJsonObject(SEMANTIC_IDS.invocationInput, writtenBy, { path: FILE_NAME, n });
  const plan = makeJsonObject(SEMANTIC_IDS.effectPlan, writtenBy, {
    effects: [
      {
        id: 'e1',
        effect: 'Workspace.Read',
        scope: 'worktree',
        cost: 1,
        payload: { op: 'read', path: FILE_NAME },
      },
    ],
    n,
  });
  const request = makeJsonObject(SEMANTIC_IDS.effectRequest, BROKER_PROVENANCE, {
    op: 'read',
    path: FILE_NAME,
    n,
  });
  const result = makeJsonObject(SEMANTIC_IDS.effectResult, BROKER_PROVENANCE, {
    ok: true,
    content,
    n,
  });
  const record = makeJsonObject(SEMANTIC_IDS.effectRecord, BROKER_PROVENANCE, {
    requestRef: request.hash,
    resultRef: result.hash,
    n,
  });
  const output = makeJsonObject(SEMANTIC_IDS.invocationOutput, writtenBy, {
    ok: true,
    content,
    world: { plan: plan.hash, record: record.hash },
  });
  const invocation = makeJsonObject(SEMANTIC_IDS.invocationRecord, writtenBy, {
    invocationId,
    input: input.hash,
    output: output.hash,
    plan: plan.hash,
    effects: [record.hash],
  });
  return {
    invocationId,
    writtenBy,
    semanticsEpoch: identity.semanticsEpoch,
    transitionFn: identity.transitionFn,
    interpreter: identity.interpreter,
    transitionRef: invocation.hash,
    stateRoot: output.hash,
    objects: [input, plan, output, invocation, request, result, record].map(toWireObject),
  };
}

/**
 * Commits entries until the head's entryIndex reaches `entries` (no-op when already there).
 * @param currentHead the head's entryIndex now
 * @param onProgress called with the head reached, now and then
 * @returns how many entries were committed
 * @throws the first commit failure
 */
export async function fillLog(
  rpc: RpcClient,
  currentHead: number,
  entries: number,
  onProgress?: (head: number) => void,
): Promise<number> {
  const missing = entries - currentHead;
  if (missing <= 0) return 0;
  const identity = await toolIdentity(rpc);
  const tag = `fill${Date.now().toString(36)}`;
  let issued = 0;
  let done = 0;
  let head = currentHead;
  const PROGRESS_EVERY = 5_000;
  const worker = async () => {
    while (issued < missing) {
      const n = issued++;
      const reply = await rpc.request('ledger.commit', fillCommit(n, tag, identity), {
        timeoutMs: HARNESS_REQUEST_MS,
      });
      head = Math.max(head, reply.entryIndex);
      if (++done % PROGRESS_EVERY === 0) onProgress?.(head);
    }
  };
  await Promise.all(Array.from({ length: Math.min(FILL_IN_FLIGHT, missing) }, worker));
  return done;
}
