/**
 * The laws of appending to the log, written once (CONVENTIONS.md "One law, one function"):
 * where the next entry goes, what a REST commit must state to be appended, how a commit's
 * objects are verified and how a commit request is fingerprinted. Pure: no I/O.
 */
import {
  canonicalJson,
  entryHash,
  fromWireObject,
  InvalidBase64Error,
  InvalidEnvelopeError,
  InvalidRefError,
  ObjectHashMismatchError,
  parseRef,
  sha256Hex,
  worldRef,
  type LogEntry,
  type Ref,
  type WireObject,
  type World,
  type WorldObject,
} from '@world/canonical';
import {
  BadRequestError,
  COORDINATOR_INVOCATION_ID,
  HeadConflictError,
  REST_INVOCATION_ID,
  type ParsedRequestOf,
  type ReplyOf,
  type RequestOf,
} from '@world/contracts';

/** The selected head as the commit transaction reads it under its row lock. */
export interface HeadPosition {
  worldRef: Ref;
  entryIndex: number;
  entryHash: Ref;
  revision: number;
}

/** Where the next entry goes: index, previous hash and world revision (DESIGN.md §7.1–7.2). */
interface NextLink {
  entryIndex: number;
  prevEntryHash: Ref;
  revision: number;
}

/**
 * The position after the head: entryIndex = head + 1, prevEntryHash = head's entry hash,
 * revision = head revision + 1 (DESIGN.md §7.2; world-internals §4 applyRevision).
 * @internal exported for chain.spec.ts
 */
export function nextLink(head: HeadPosition): NextLink {
  return {
    entryIndex: head.entryIndex + 1,
    prevEntryHash: head.entryHash,
    revision: head.revision + 1,
  };
}

/** A log entry and the world it selects, ready to be written. */
export interface ChainedCommit {
  entry: LogEntry;
  world: World;
}

/** How a commit writes its journal row, if it has an invocation id. */
export type JournalWrite =
  /**
   * a coordinator commit: insert, or bind its own live claim (DESIGN.md §2).
   * `claimToken` is the token its claim answered; null for a call without a claim.
   */
  | { mode: 'tool'; invocationId: string; commitHash: string; claimToken: string | null }
  /** a REST commit: insert, or bind its own intent (same commit hash) */
  | { mode: 'rest'; invocationId: string; commitHash: string };

/** Everything one commit writes: its objects, entry, world and journal row. */
export interface AppendWrite extends ChainedCommit {
  objects: WorldObject[];
  journal: JournalWrite | null;
}

/** A tool commit's write: journaled as a coordinator call. */
export type ToolAppendWrite = AppendWrite & { journal: Extract<JournalWrite, { mode: 'tool' }> };

/**
 * The `ledger.committed` event of a written commit (DESIGN.md §2: announced after the
 * transaction committed): its entry, world, writer and invocation id (null without one).
 */
export function committedEvent({
  entry,
  world,
  journal,
}: AppendWrite): RequestOf<'ledger.committed'> {
  return {
    entryIndex: entry.header.entryIndex,
    entryHash: entry.entryHash,
    worldRef: world.ref,
    writtenBy: entry.header.writtenBy,
    invocationId: journal?.invocationId ?? null,
  };
}

/** The head a written commit leaves: its world and entry (the next commit chains on it). */
export function headAfter({ entry, world }: ChainedCommit): HeadPosition {
  return {
    worldRef: world.ref,
    entryIndex: entry.header.entryIndex,
    entryHash: entry.entryHash,
    revision: world.revision,
  };
}

/** The `ledger.commit` answer of a commit written now (not a replay). */
export function freshCommitReply({ entry, world }: ChainedCommit): ReplyOf<'ledger.commit'> {
  return {
    entryIndex: entry.header.entryIndex,
    entryHash: entry.entryHash,
    prevEntryHash: entry.header.prevEntryHash,
    worldRef: world.ref,
    revision: world.revision,
    replayed: false,
  };
}

/** What a coordinator commit states; the ledger supplies the rest from the head. */
export type ToolCommitRequest = ParsedRequestOf<'ledger.commit'>;
/** A REST commit (world-spec §5.10). */
export type RestCommitRequest = ParsedRequestOf<'ledger.restCommit'>;

/**
 * Builds the entry and world of a coordinator commit on top of the head: the ledger assigns
 * index and previous hash, hashes the entry (entryHash), and derives the world (revision + 1,
 * stateRoot = output, logHead = entry hash, ref = worldRef). Source: DESIGN.md §4, §7.1.
 * @param head the selected head, read under its row lock
 * @param request the parsed `ledger.commit` request
 */
export function chainToolCommit(head: HeadPosition, request: ToolCommitRequest): ChainedCommit {
  const link = nextLink(head);
  const header = {
    entryIndex: link.entryIndex,
    semanticsEpoch: request.semanticsEpoch,
    transitionFn: request.transitionFn,
    interpreter: request.interpreter,
    prevEntryHash: link.prevEntryHash,
    writtenBy: request.writtenBy,
  };
  const hash = entryHash(header, request.transitionRef);
  const shape = { revision: link.revision, stateRoot: request.stateRoot, logHead: hash };
  return {
    entry: { header, entryHash: hash, transitionRef: request.transitionRef },
    world: { ref: worldRef(shape), ...shape },
  };
}

/**
 * Compare-and-append, density and linkage of a REST commit against the selected head
 * (world-spec §5.10, world-internals §6, DESIGN.md §7.2, incident 16). Checks, in order:
 * observedHead equals the selected head; entry.header.entryIndex = head + 1;
 * entry.header.prevEntryHash = head entry hash; entry.entryHash recomputes;
 * nextWorld.logHead = entry.entryHash; nextWorld.revision = head revision + 1;
 * nextWorld.ref recomputes.
 * @throws HeadConflictError(observedHead, selectedHead) when observedHead is stale ('' included:
 *   genesis exists from the first start, DESIGN.md §7.3)
 * @throws BadRequestError naming the first field that breaks a law and the value it must have
 */
export function checkRestCommit(head: HeadPosition, request: RestCommitRequest): void {
  if (request.observedHead !== head.worldRef) {
    throw new HeadConflictError(request.observedHead, head.worldRef);
  }
  const link = nextLink(head);
  const { header } = request.entry;
  const expect = (
    field: string,
    expected: string | number,
    actual: string | number,
    why: string,
  ) => {
    if (expected !== actual) {
      throw new BadRequestError(`${field} must be ${expected} (${why}), got ${actual}`);
    }
  };
  expect(
    'entry.header.entryIndex',
    link.entryIndex,
    header.entryIndex,
    "the selected head's entry index + 1",
  );
  expect(
    'entry.header.prevEntryHash',
    link.prevEntryHash,
    header.prevEntryHash,
    "the selected head's entry hash",
  );
  expect(
    'entry.entryHash',
    entryHash(header, request.entry.transitionRef),
    request.entry.entryHash,
    'sha256 of the canonical entry',
  );
  expect(
    'nextWorld.logHead',
    request.entry.entryHash,
    request.nextWorld.logHead,
    "the entry's hash",
  );
  expect(
    'nextWorld.revision',
    link.revision,
    request.nextWorld.revision,
    "the selected head's revision + 1",
  );
  expect(
    'nextWorld.ref',
    worldRef(request.nextWorld),
    request.nextWorld.ref,
    'sha256 of the canonical world',
  );
}

/**
 * The observedHead of a REST commit: '' (genesis lenience, incident 23) or a strict ref.
 * @throws BadRequestError `observedHead: <problem>`
 */
export function parseObservedHead(text: string): Ref | '' {
  if (text === '') return '';
  try {
    return parseRef(text, 'observedHead');
  } catch (err) {
    throw new BadRequestError((err as Error).message);
  }
}

/**
 * The invocation id of a REST commit: absent, or `rest:<id>` (world-spec §5.10).
 * @throws BadRequestError when present and not in the `rest:` namespace
 */
export function checkRestInvocationId(invocationId: string | undefined): string | null {
  if (invocationId === undefined) return null;
  if (!REST_INVOCATION_ID.test(invocationId)) {
    throw new BadRequestError(
      `invocationId must be rest:<id> with 1-128 characters of [A-Za-z0-9._:-] after the prefix, got "${invocationId}"`,
    );
  }
  return invocationId;
}

/**
 * The invocation id of a coordinator commit or claim: `a2a:` or `mcp:` + episode + task. The
 * namespaces are disjoint by prefix so a tool call can never bind a REST intent (world-internals
 * §5.3).
 * @throws BadRequestError naming the expected form
 */
export function checkCoordinatorInvocationId(invocationId: string): string {
  if (!COORDINATOR_INVOCATION_ID.test(invocationId)) {
    throw new BadRequestError(
      `invocationId must be a2a:<episode>:<task> or mcp:<episode>:<task>, got "${invocationId}"`,
    );
  }
  return invocationId;
}

/** A ref an entry names, with the request field that names it (for the refusal's message). */
export type NamedRef = readonly [field: string, ref: Ref];

/** The refs a coordinator commit names: its transitionRef and stateRoot. */
export function toolRefs(request: ToolCommitRequest): NamedRef[] {
  return [
    ['transitionRef', request.transitionRef],
    ['stateRoot', request.stateRoot],
  ];
}

/** The refs a REST commit names: its entry's transitionRef and its world's stateRoot. */
export function restRefs(request: RestCommitRequest): NamedRef[] {
  return [
    ['entry.transitionRef', request.entry.transitionRef],
    ['nextWorld.stateRoot', request.nextWorld.stateRoot],
  ];
}

/**
 * The named refs a commit does not carry: whether they are stored is the database's question
 * (world-spec §9.1: every ref of an entry resolves from the ledger alone).
 * @param carried the hashes of the objects carried (with those of earlier commits of the same
 *   transaction, which are written first)
 */
export function refsToLookUp(refs: readonly NamedRef[], carried: ReadonlySet<string>): Ref[] {
  return refs.filter(([, ref]) => !carried.has(ref)).map(([, ref]) => ref);
}

/**
 * The refusal of a commit whose named refs are neither carried nor stored (world-spec §9.1), or
 * null when every one resolves.
 * @param stored ref → semantic id of the looked-up refs that are stored
 * @returns BadRequestError `<field>: object <ref> is neither carried by the commit nor stored`
 *   for the first that does not resolve
 */
export function unresolvable(
  refs: readonly NamedRef[],
  carried: ReadonlySet<string>,
  stored: ReadonlyMap<string, string>,
): BadRequestError | null {
  for (const [field, ref] of refs) {
    if (!carried.has(ref) && !stored.has(ref))
      return new BadRequestError(
        `${field}: object ${ref} is neither carried by the commit nor stored`,
      );
  }
  return null;
}

/**
 * Decodes and verifies every object a commit carries (hash = sha256(payload), envelope well
 * formed), keeping the first of any repeated hash (world-spec §2.13; DESIGN.md §7.5: a mismatch
 * is a 400).
 * @throws BadRequestError naming `objects[i]` and the problem
 */
export function verifyWireObjects(wires: WireObject[], field = 'objects'): WorldObject[] {
  const seen = new Set<string>();
  const verified: WorldObject[] = [];
  wires.forEach((wire, i) => {
    const object = verifyWireObject(wire, `${field}[${i}]`);
    if (seen.has(object.hash)) return;
    seen.add(object.hash);
    verified.push(object);
  });
  return verified;
}

/**
 * Decodes and verifies one wire object (hash = sha256(payload), strict refs and base64, envelope
 * well formed; world-spec §2.13).
 * @param name the field the object came from, used in the message
 * @throws BadRequestError naming the field and the problem
 */
export function verifyWireObject(wire: WireObject, name: string): WorldObject {
  try {
    return fromWireObject(wire, name);
  } catch (err) {
    throw objectError(name, err);
  }
}

function objectError(name: string, err: unknown): Error {
  if (err instanceof InvalidRefError || err instanceof InvalidBase64Error) {
    return new BadRequestError(err.message);
  }
  if (err instanceof InvalidEnvelopeError) return new BadRequestError(`${name}.${err.message}`);
  if (err instanceof ObjectHashMismatchError) return new BadRequestError(`${name}: ${err.message}`);
  return err as Error;
}

/**
 * The fingerprint of a commit request: sha256 hex of its canonical JSON (RFC 8785). Two sends
 * are "the same commit" exactly when their fingerprints are equal (world-internals §5.3).
 */
export function commitHashOf(request: ToolCommitRequest | RestCommitRequest): string {
  // The claim token names the attempt, not the content: a commit resent under it fingerprints alike.
  const { claimToken: _token, ...content } = request as ToolCommitRequest;
  return sha256Hex(canonicalJson(content));
}
