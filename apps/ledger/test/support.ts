/**
 * Shared fixtures of the ledger's integration and e2e tests: the two run modes, and builders of
 * commits the way the planner and a REST client make them.
 */
import {
  entryHash,
  makeJsonObject,
  refOf,
  toWireObject,
  worldRef,
  type Ref,
  type WorldObject,
} from '@world/canonical';
import type { CommitAuthor, ReplyOf, RequestOf } from '@world/contracts';
import { openPostgres, type DatabaseHandle, type TransportConfig } from '@world/runtime';
import { createTestDatabase, testNatsUrl, uniquePrefix, type TestDatabase } from '@world/testing';
import type { CommitInvocation } from '../src/commit/commit-invocation.js';
import type { CommitStrategy } from '../src/commit/commit-strategies.js';
import type { PreparedCommit } from '../src/commit/tool-commit.js';

/** Every request a test sends names this timeout. */
export const RPC_TIMEOUT_MS = 10_000;

/** A database and a transport for one test file, and how to tear them down. */
export interface ModeSetup {
  transport: TransportConfig;
  database: DatabaseHandle;
  /** opens another handle on the same database (a second replica's pool); PostgreSQL only */
  reopen?: () => Promise<DatabaseHandle>;
  /** opens a fresh, empty database of the same kind (closed by teardown) */
  another(): Promise<DatabaseHandle>;
  teardown(): Promise<void>;
}

/**
 * The run mode the integration suites cover: PostgreSQL + NATS, once (embedded World runs on
 * PostgreSQL too; its in-process bus is covered by apps/cli's e2e suites).
 */
export const MODES: Array<[string, () => Promise<ModeSetup>]> = [
  [
    'PostgreSQL + NATS',
    async () => {
      const tdb = await createTestDatabase('ledger');
      const database = await openPostgres(tdb.url);
      const others: Array<{ tdb: TestDatabase; database: DatabaseHandle }> = [];
      return {
        transport: { kind: 'nats', url: testNatsUrl(), prefix: uniquePrefix('ledger') },
        database,
        reopen: () => openPostgres(tdb.url),
        async another() {
          const other = await createTestDatabase('ledger_other');
          others.push({ tdb: other, database: await openPostgres(other.url) });
          return others[others.length - 1]!.database;
        },
        async teardown() {
          await database.close();
          await tdb.drop();
          for (const other of others) {
            await other.database.close();
            await other.tdb.drop();
          }
        },
      };
    },
  ],
];

/** The identity refs a planner would put in every header. */
export const TRANSITION_FN: Ref = refOf('test transition source');
export const INTERPRETER: Ref = refOf('test interpreter');

/** A coordinator commit's objects: input, output, invocation record. */
export interface ToolCall {
  request: RequestOf<'ledger.commit'>;
  input: WorldObject;
  output: WorldObject;
  record: WorldObject;
}

/**
 * A `ledger.commit` request as the planner builds it: input, output and invocation record
 * objects; transitionRef = record, stateRoot = output.
 * @param output the output value (identical outputs dedupe to one object, incident 25)
 */
export function toolCall(
  invocationId: string,
  input: unknown,
  output: unknown = { ok: true },
): ToolCall {
  const inputObject = makeJsonObject('world/invocation-input/v1', 'coordinator:mcp', input);
  const outputObject = makeJsonObject('world/invocation-output/v1', 'coordinator:mcp', output);
  const record = makeJsonObject('world/invocation-record/v1', 'coordinator:mcp', {
    invocationId,
    input: inputObject.hash,
    output: outputObject.hash,
  });
  return {
    input: inputObject,
    output: outputObject,
    record,
    request: {
      invocationId,
      writtenBy: 'coordinator:mcp',
      semanticsEpoch: 1,
      transitionFn: TRANSITION_FN,
      interpreter: INTERPRETER,
      transitionRef: record.hash,
      stateRoot: outputObject.hash,
      objects: [inputObject, outputObject, record].map(toWireObject),
    },
  };
}

/** The selected head as `ledger.head` reports it. */
export interface HeadView {
  worldRef: Ref;
  entryIndex: number;
  entryHash: Ref;
  revision: number;
}

/** The committer of the suites' REST commits. */
const REST_AUTHOR: CommitAuthor = { kind: 'operator' };

/**
 * A valid REST commit on top of `head` (world-spec §5.10): the client computes index, previous
 * hash, entry hash and world itself; entry and objects name the committer (DESIGN.md §3).
 * @param author the committer (default the operator, writtenBy `operator/quickstart`)
 * @param writtenBy what the entry and its objects name (default: the author's name + `/quickstart`)
 */
export function restCommit(
  head: HeadView,
  label: string,
  invocationId?: string,
  author: CommitAuthor = REST_AUTHOR,
  writtenBy = `${author.kind === 'operator' ? 'operator' : `episode:${author.episodeId}`}/quickstart`,
): RequestOf<'ledger.restCommit'> {
  const state = makeJsonObject('world/demo/state', writtenBy, { label });
  const body = makeJsonObject('world/demo/record', writtenBy, { label, state: state.hash });
  const header = {
    entryIndex: head.entryIndex + 1,
    semanticsEpoch: 1,
    transitionFn: TRANSITION_FN,
    interpreter: INTERPRETER,
    prevEntryHash: head.entryHash,
    writtenBy,
  };
  const hash = entryHash(header, body.hash);
  const shape = { revision: head.revision + 1, stateRoot: state.hash, logHead: hash };
  return {
    author,
    ...(invocationId === undefined ? {} : { invocationId }),
    observedHead: head.worldRef,
    objects: [state, body].map(toWireObject),
    nextWorld: { ref: worldRef(shape), ...shape },
    entry: { header, entryHash: hash, transitionRef: body.hash },
  };
}

/**
 * Commits one prepared tool call as a batch of its own, the way chooseStrategy picks (or
 * `strategy`, when given; a strategy that declines falls back to its own transaction).
 * @throws the commit's refusal
 */
export async function commitLone(
  invocation: CommitInvocation,
  prepared: PreparedCommit,
  strategy?: CommitStrategy,
): Promise<ReplyOf<'ledger.commit'>> {
  const [outcome] = await invocation.commitBatch([prepared], undefined, strategy);
  if (outcome === undefined) throw new Error('a batch of one commit had no outcome');
  if ('error' in outcome) throw outcome.error;
  return outcome.reply;
}
