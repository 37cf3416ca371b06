/**
 * `ledger.restCommit`: the REST commit of `POST /v1/commit` — compare-and-append on observedHead,
 * with the ledger enforcing density, linkage and hashes (world-spec §5.10; DESIGN.md §7.1–7.2,
 * §7.5; world-internals §5.3, §6).
 */
import { Injectable } from '@nestjs/common';
import type { Ref, WorldObject } from '@world/canonical';
import { BadRequestError, type ReplyOf } from '@world/contracts';
import { crashpoint } from '@world/runtime';
import {
  checkRestCommit,
  checkRestInvocationId,
  commitHashOf,
  committedEvent,
  parseObservedHead,
  refsToLookUp,
  restRefs,
  unresolvable,
  verifyWireObjects,
  type AppendWrite,
  type RestCommitRequest,
} from './chain.js';
import { CommitRepository, type CommitTx } from './commit.repository.js';
import { CommittedEvents } from './committed-events.js';
import { checkRestAuthorship, checkRestReferences } from './rest-authorship.js';

/** The outcome of the intent transaction: answer a resend, or go on to the commit. */
type IntentStep = { kind: 'replay'; selectedHead: Ref } | { kind: 'proceed' };
/** The outcome of the commit transaction (a refusal is thrown after its intent is removed). */
type CommitStep =
  | { kind: 'replay'; selectedHead: Ref }
  | { kind: 'refused'; error: Error }
  | { kind: 'committed'; write: AppendWrite };

/** The use case of `ledger.restCommit`. */
@Injectable()
export class CommitRest {
  constructor(
    private readonly repository: CommitRepository,
    private readonly events: CommittedEvents,
  ) {}

  /**
   * Commits a REST world transition. With an invocation id the intent is journaled first in its
   * own transaction (so a crash before the commit leaves the receipt `indeterminate`), then the
   * commit transaction binds it and writes the outcome. Every refusal happens before any write:
   * the checks run before the intent is journaled and again under the head lock; a refusal found
   * only under the lock removes this commit's own intent, so nothing stays written.
   * @param request a parsed `ledger.restCommit` request
   * @returns {selectedHead: nextWorld.ref}; the same reply again for a resend of the same request
   *   under the same id (no new entry)
   * @throws BadRequestError: invocation id outside `rest:` (a session's: outside
   *   `rest:<episode>:`); observedHead neither '' nor a ref; an object whose payload does not hash
   *   to its hash; a writtenBy that does not name the committer, a carried object of a semantic id
   *   only World writes or whose provenance is not the writtenBy (checkRestAuthorship); a density,
   *   linkage or hash law broken (the message names the field and the expected value);
   *   transitionRef or stateRoot unresolvable, or naming a stored object only World writes; the id
   *   already used for a different commit
   * @throws HeadConflictError(observedHead, selectedHead) when observedHead is stale
   */
  async execute(request: RestCommitRequest): Promise<ReplyOf<'ledger.restCommit'>> {
    const invocationId = checkRestInvocationId(request.invocationId);
    parseObservedHead(request.observedHead);
    const carried = verifyWireObjects(request.objects);
    checkRestAuthorship(request.author, request, carried);
    const commitHash = commitHashOf(request);
    const usedElsewhere = () =>
      new BadRequestError(
        `invocation id "${invocationId}" was already used for a different commit`,
      );

    if (invocationId !== null) {
      const intent = await this.repository.transaction<IntentStep>(async (t) => {
        const row = await t.lockJournal(invocationId);
        if (row !== null && row.commitHash !== commitHash) throw usedElsewhere();
        if (row?.state === 'committed' && row.worldRef !== null)
          return { kind: 'replay', selectedHead: row.worldRef };
        checkRestCommit(await t.readHead(), request);
        await requireRestResolvable(t, carried, request);
        if (row === null) await t.insertRestIntent(invocationId, commitHash);
        return { kind: 'proceed' };
      });
      if (intent.kind === 'replay') return { selectedHead: intent.selectedHead };
    }

    const step = await this.repository.transaction<CommitStep>(async (t) => {
      const { head, journal } = await t.lockHead(invocationId);
      if (invocationId !== null && journal !== null) {
        if (journal.commitHash !== commitHash) throw usedElsewhere();
        if (journal.state === 'committed' && journal.outcome !== null) {
          return { kind: 'replay', selectedHead: journal.outcome.worldRef };
        }
      }
      try {
        checkRestCommit(head, request);
        await requireRestResolvable(t, carried, request);
      } catch (error) {
        if (invocationId === null) throw error;
        await t.dropRestIntent(invocationId, commitHash);
        return { kind: 'refused', error: error as Error };
      }
      const write: AppendWrite = {
        objects: carried,
        entry: request.entry,
        world: request.nextWorld,
        journal: invocationId === null ? null : { mode: 'rest', invocationId, commitHash },
      };
      if (!(await t.append(write))) throw usedElsewhere();
      crashpoint('inside-commit');
      return { kind: 'committed', write };
    });

    if (step.kind === 'refused') throw step.error;
    if (step.kind === 'replay') return { selectedHead: step.selectedHead };
    this.events.committed(committedEvent(step.write));
    return { selectedHead: step.write.world.ref };
  }
}

/**
 * The REST entry's transitionRef and stateRoot resolve (carried or stored), and neither names a
 * stored object only World writes (checkRestReferences).
 */
async function requireRestResolvable(
  t: CommitTx,
  carried: WorldObject[],
  request: RestCommitRequest,
): Promise<void> {
  const refs = restRefs(request);
  const hashes = new Set(carried.map((o) => o.hash));
  const stored = await t.storedObjects(refsToLookUp(refs, hashes));
  const refused = unresolvable(refs, hashes, stored);
  if (refused !== null) throw refused;
  checkRestReferences(refs, stored);
}
