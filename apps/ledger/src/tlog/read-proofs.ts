/**
 * The proofs the ledger serves (RFC 9162 §2.1.3.1, §2.1.4.1), for any size
 * the log has had, each from ONE read of stored nodes: the proof's nodes, the leaf (inclusion)
 * and the roots' compact ranges share one `GetNodes` call.
 */
import { Injectable } from '@nestjs/common';
import { BadRequestError, type ParsedRequestOf, type ReplyOf } from '@world/contracts';
import {
  buildProof,
  consistencyPlan,
  inclusionPlan,
  rootPlan,
  TreeRangeError,
  type NodeId,
  type ProofPlan,
} from '@world/tlog';
import { TreeRepository } from './tree.repository.js';

const b64 = (hash: Uint8Array) => Buffer.from(hash).toString('base64');

/**
 * Reads the nodes of several plans in one query and builds each.
 * @returns one list of output hashes per plan
 */
async function buildAll(tree: TreeRepository, plans: ProofPlan[]): Promise<Buffer[][]> {
  const ids: NodeId[] = plans.flatMap((p) => [...p.nodes]);
  const fetched = ids.length === 0 ? [] : await tree.getNodes(ids);
  let at = 0;
  return plans.map((plan) => {
    const mine = fetched.slice(at, at + plan.nodes.length);
    at += plan.nodes.length;
    return buildProof(plan, mine);
  });
}

/** The root of a plan's output (MTH of the empty tree for size 0). */
function rootOf(hashes: Buffer[]): string {
  return hashes.length === 0 ? '47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=' : b64(hashes[0]!);
}

/**
 * @throws BadRequestError when `size` is past the log's tree size, or a TreeRangeError's message
 */
async function withinLog(tree: TreeRepository, size: number, what: string): Promise<void> {
  const head = await tree.headTree();
  if (size > head.size)
    throw new BadRequestError(`${what} ${size} is larger than the log's tree size ${head.size}`);
}

function ranged<T>(build: () => T): T {
  try {
    return build();
  } catch (err) {
    if (err instanceof TreeRangeError) throw new BadRequestError(err.message);
    throw err;
  }
}

/** `ledger.tlog.inclusion`: the audit path of one leaf in a tree the log has had. */
@Injectable()
export class ReadInclusion {
  constructor(private readonly tree: TreeRepository) {}

  /**
   * The audit path of leaf `index` in the tree of `size` leaves, with the leaf hash and the
   * root, for any size the log has had.
   * @throws BadRequestError `leaf index I is not below tree size N`, or a size past the log's
   */
  async execute(
    request: ParsedRequestOf<'ledger.tlog.inclusion'>,
  ): Promise<ReplyOf<'ledger.tlog.inclusion'>> {
    const { index, size } = request;
    const plan = ranged(() => inclusionPlan(index, size));
    await withinLog(this.tree, size, 'tree size');
    const leaf: ProofPlan = { nodes: [{ level: 0, index }], hashes: [[0]] };
    const [hashes, [leafHash], root] = await buildAll(this.tree, [plan, leaf, rootPlan(size)]);
    return {
      index,
      size,
      leafHash: b64(leafHash!),
      rootHash: rootOf(root!),
      hashes: hashes!.map(b64),
    };
  }
}

/** `ledger.tlog.consistency`: PROOF(from, D[to]) with the roots of both sizes. */
@Injectable()
export class ReadConsistency {
  constructor(private readonly tree: TreeRepository) {}

  /** @throws BadRequestError `old tree size M is larger than new tree size N`, or a size past the log's */
  async execute(
    request: ParsedRequestOf<'ledger.tlog.consistency'>,
  ): Promise<ReplyOf<'ledger.tlog.consistency'>> {
    const { from, to } = request;
    const plan = ranged(() => consistencyPlan(from, to));
    await withinLog(this.tree, to, 'tree size');
    const [hashes, fromRoot, toRoot] = await buildAll(this.tree, [
      plan,
      rootPlan(from),
      rootPlan(to),
    ]);
    return {
      from,
      to,
      fromRoot: rootOf(fromRoot!),
      toRoot: rootOf(toRoot!),
      hashes: hashes!.map(b64),
    };
  }
}
