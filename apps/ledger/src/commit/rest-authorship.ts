/**
 * The authorship law of a REST commit (DESIGN.md §3 "Who may read and write what", §7.5): tool-call
 * provenance — coordinator writers, invocation records, effect records — is written only by the
 * coordinator's commit (`ledger.commit`). A REST commit names its committer and stays inside what
 * that committer owns. Pure: no I/O.
 */
import type { WorldObject } from '@world/canonical';
import { BadRequestError, RESERVED_SEMANTIC_IDS, type CommitAuthor } from '@world/contracts';
import type { NamedRef, RestCommitRequest } from './chain.js';

/** A label a committer may add to its name: `episode:ep1/<label>`, `operator/<label>`. */
const WRITER_LABEL = /^[A-Za-z0-9._-]{1,64}$/;
/** What follows `rest:<episode>:` in a session's invocation id. */
const REST_ID_TAIL = /^[A-Za-z0-9._:-]{1,128}$/;

/** The name a committer's entries carry in `writtenBy`: `episode:<id>` or `operator`. */
function writerNameOf(author: CommitAuthor): string {
  return author.kind === 'operator' ? 'operator' : `episode:${author.episodeId}`;
}

/**
 * True when `writtenBy` names the committer: its name (writerNameOf), alone or followed by
 * `/<label>` (1-64 of [A-Za-z0-9._-]). A coordinator's name (`coordinator:*`) never does.
 * @internal exported for rest-authorship.spec.ts
 */
export function namesCommitter(author: CommitAuthor, writtenBy: string): boolean {
  const name = writerNameOf(author);
  if (writtenBy === name) return true;
  return writtenBy.startsWith(`${name}/`) && WRITER_LABEL.test(writtenBy.slice(name.length + 1));
}

/**
 * Checks who a REST commit says wrote it, before anything is journaled or written:
 * 1. `entry.header.writtenBy` names the committer (namesCommitter);
 * 2. a session's invocation id is `rest:<its episode>:<id>` (its receipts are its episode's);
 * 3. no carried object has a semantic id only World writes (RESERVED_SEMANTIC_IDS), and each
 *    carried object's provenance is the entry's writtenBy.
 * @param carried the commit's objects, already verified (hash = sha256 of payload)
 * @throws BadRequestError naming the field, what it must be and what it is
 */
export function checkRestAuthorship(
  author: CommitAuthor,
  request: RestCommitRequest,
  carried: WorldObject[],
): void {
  const { writtenBy } = request.entry.header;
  const name = writerNameOf(author);
  if (!namesCommitter(author, writtenBy)) {
    throw new BadRequestError(
      `entry.header.writtenBy must be "${name}" or "${name}/<label>" (it names the committer; coordinator:* is the coordinator's alone), got "${writtenBy}"`,
    );
  }
  if (author.kind === 'episode' && request.invocationId !== undefined) {
    const prefix = `rest:${author.episodeId}:`;
    const id = request.invocationId;
    if (!id.startsWith(prefix) || !REST_ID_TAIL.test(id.slice(prefix.length))) {
      throw new BadRequestError(
        `invocationId must be ${prefix}<id> (a session's REST commits are filed under its episode), got "${id}"`,
      );
    }
  }
  request.objects.forEach((wire, i) => {
    if (RESERVED_SEMANTIC_IDS.has(wire.semanticId))
      throw reservedError(`objects[${i}].semanticId`, wire.semanticId);
  });
  carried.forEach((object) => {
    if (object.provenance !== writtenBy) {
      const i = request.objects.findIndex((w) => w.hash === object.hash);
      throw new BadRequestError(
        `objects[${i}].provenance must be the entry's writtenBy "${writtenBy}", got "${object.provenance}"`,
      );
    }
  });
}

/**
 * Checks the stored (not carried) objects a REST entry points at — its transitionRef and its
 * world's stateRoot — for semantic ids only World writes: a REST entry may not present an
 * invocation or effect record of a tool call as its own.
 * @param stored ref → semantic id of the named refs that are stored
 * @throws BadRequestError naming the field and the semantic id
 */
export function checkRestReferences(
  refs: readonly NamedRef[],
  stored: ReadonlyMap<string, string>,
): void {
  for (const [field, ref] of refs) {
    const semanticId = stored.get(ref);
    if (semanticId !== undefined && RESERVED_SEMANTIC_IDS.has(semanticId))
      throw reservedError(field, semanticId);
  }
}

function reservedError(field: string, semanticId: string): BadRequestError {
  return new BadRequestError(
    `${field}: ${semanticId} objects are written only by World's tool calls (coordinator, broker, ledger), not by POST /v1/commit`,
  );
}
