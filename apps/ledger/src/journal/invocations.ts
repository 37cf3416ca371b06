/**
 * Idempotent invocation claims (A2A task ids, MCP `world/taskId`; DESIGN.md §7.4):
 * `ledger.invocation.begin`, `ledger.invocation.get` and `ledger.invocation.end`. The laws are
 * invocation-law.ts's; journal.repository.ts reads and writes the rows.
 */
import { Injectable } from '@nestjs/common';
import { decodeBase64 } from '@world/canonical';
import type { ParsedRequestOf, ReplyOf } from '@world/contracts';
import { verifyStored } from '@world/runtime';
import { checkCoordinatorInvocationId } from '../commit/chain.js';
import { LEDGER_SERVICE } from '../constants.js';
import { invocationOf } from './invocation-law.js';
import { JournalRepository } from './journal.repository.js';

/**
 * A committed answer's output bytes re-hashed against their ref before they are served as the
 * committed result (world-internals §2.2 step 5.4: "read back and integrity-checked"); any other
 * answer unchanged.
 * @throws StoredObjectCorruptError on a mismatch
 */
function verifiedReplay<T extends { state: string }>(reply: T): T {
  if (reply.state !== 'committed') return reply;
  const { outputRef, output } = reply as T & { outputRef: string; output: string };
  verifyStored(LEDGER_SERVICE, {
    kind: 'object',
    ref: outputRef,
    payload: decodeBase64(output, 'output'),
  });
  return reply;
}

/** `ledger.invocation.begin`: claims an idempotent invocation id before the call runs. */
@Injectable()
export class BeginInvocation {
  constructor(private readonly journal: JournalRepository) {}

  /**
   * Claims the id, or says what became of the first attempt: claimed | committed (with the
   * output's exact bytes) | in-flight | mismatch | ended (lapsed, uncertain, abandoned). Law:
   * decideBegin (DESIGN.md §7.4; world-spec §4.6, §6.5). A committed answer's output is
   * re-hashed before it is served (verifiedReplay).
   * @throws BadRequestError when the id is not `a2a:`/`mcp:` + episode + task
   * @throws StoredObjectCorruptError when the committed output's bytes do not hash to its ref
   */
  async execute(
    request: ParsedRequestOf<'ledger.invocation.begin'>,
  ): Promise<ReplyOf<'ledger.invocation.begin'>> {
    const invocationId = checkCoordinatorInvocationId(request.invocationId);
    return verifiedReplay(
      await this.journal.begin(
        invocationId,
        request.requestHash,
        request.ttlMs,
        request.reclaim ?? false,
        request.holder ?? null,
      ),
    );
  }
}

/** `ledger.invocation.get`: the read-only view of an invocation id (A2A GetTask). */
@Injectable()
export class GetInvocation {
  constructor(private readonly journal: JournalRepository) {}

  /**
   * none | committed | in-flight | ended. Law: invocationOf. Writes nothing.
   * @throws StoredObjectCorruptError when the committed output's bytes do not hash to its ref
   */
  async execute(
    request: ParsedRequestOf<'ledger.invocation.get'>,
  ): Promise<ReplyOf<'ledger.invocation.get'>> {
    return verifiedReplay(invocationOf(await this.journal.find(request.invocationId, true)));
  }
}

/** `ledger.invocation.end`: gives up a claim that did not commit. */
@Injectable()
export class EndInvocation {
  constructor(private readonly journal: JournalRepository) {}

  /**
   * Marks the claim ended with the caller's reason (uncertain: it may have run; abandoned:
   * nothing ran); with a claim token, only that attempt's claim. Once ended, no commit of the
   * claim can land (DESIGN.md §2). A committed, ended, reclaimed or unknown id is left as it is
   * and answers ended:false (DESIGN.md §7.4).
   */
  async execute(
    request: ParsedRequestOf<'ledger.invocation.end'>,
  ): Promise<ReplyOf<'ledger.invocation.end'>> {
    return {
      ended: await this.journal.end(request.invocationId, request.reason, request.claimToken),
    };
  }
}
