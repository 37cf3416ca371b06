// Micro-benchmark of @world/tlog (not a test; `pnpm --filter @world/tlog bench` after a build):
// the cost of appending 100,000 leaves (one per commit, and in groups of 16), and of computing
// roots, inclusion and consistency proofs at that size from an in-memory node table, which
// stands in for the ledger's one batched SELECT per proof. Prints a JSON summary.
import { randomInt } from 'node:crypto';
import {
  appendLeaves,
  consistencyPlan,
  consistencyProof,
  EMPTY_TREE,
  inclusionPlan,
  inclusionProof,
  leafHash,
  MemoryNodeStore,
  rootAt,
  verifyConsistency,
  verifyInclusion,
} from '../dist/index.js';

const SIZE = 100_000;
const SAMPLES = 2_000;

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  const mean = sorted.reduce((s, x) => s + x, 0) / sorted.length;
  return {
    n: sorted.length,
    p50_us: at(0.5),
    p99_us: at(0.99),
    max_us: sorted[sorted.length - 1],
    mean_us: mean,
  };
}
const round = (o) =>
  Object.fromEntries(
    Object.entries(o).map(([k, v]) => [k, Number.isInteger(v) ? v : +v.toFixed(2)]),
  );
const micros = (start) => Number(process.hrtime.bigint() - start) / 1000;

const leaves = Array.from({ length: SIZE }, (_, i) => leafHash(Buffer.from(`entry header ${i}`)));

function appendAll(groupSize) {
  const store = new MemoryNodeStore();
  const per = [];
  let state = EMPTY_TREE;
  let written = 0;
  const begin = process.hrtime.bigint();
  for (let at = 0; at < SIZE; at += groupSize) {
    const start = process.hrtime.bigint();
    const step = appendLeaves(state, leaves.slice(at, at + groupSize));
    per.push(micros(start));
    store.add(step.nodes);
    written += step.nodes.length;
    state = step.state;
  }
  return {
    store,
    state,
    summary: {
      group_size: groupSize,
      appends: per.length,
      total_ms: +(micros(begin) / 1000).toFixed(1),
      nodes_written: written,
      nodes_per_leaf: +(written / SIZE).toFixed(3),
      per_append: round(stats(per)),
    },
  };
}

async function time(fn) {
  const start = process.hrtime.bigint();
  await fn();
  return micros(start);
}

const single = appendAll(1);
const grouped = appendAll(16);
const { store } = single;
const getNodes = store.getNodes;

const root = await rootAt(SIZE, getNodes);
const incl = [];
const inclVerify = [];
const inclReads = [];
const cons = [];
const consReads = [];
const roots = [];
for (let i = 0; i < SAMPLES; i++) {
  const index = randomInt(SIZE);
  let proof;
  incl.push(await time(async () => (proof = await inclusionProof(index, SIZE, getNodes))));
  inclReads.push(inclusionPlan(index, SIZE).nodes.length);
  inclVerify.push(await time(() => verifyInclusion(leaves[index], index, SIZE, proof, root)));
  const m = 1 + randomInt(SIZE - 1);
  let cproof;
  cons.push(await time(async () => (cproof = await consistencyProof(m, SIZE, getNodes))));
  consReads.push(consistencyPlan(m, SIZE).nodes.length);
  if (i < 50) verifyConsistency(m, SIZE, await rootAt(m, getNodes), root, cproof);
  const size = 1 + randomInt(SIZE);
  roots.push(await time(() => rootAt(size, getNodes)));
}

const maxOf = (xs) => Math.max(...xs);
console.log(
  JSON.stringify(
    {
      leaves: SIZE,
      nodes_stored: store.count,
      append_one_per_commit: single.summary,
      append_groups_of_16: grouped.summary,
      inclusion_proof: { ...round(stats(incl)), max_nodes_read: maxOf(inclReads) },
      inclusion_verify: round(stats(inclVerify)),
      consistency_proof: { ...round(stats(cons)), max_nodes_read: maxOf(consReads) },
      root_at_random_size: round(stats(roots)),
      node: process.version,
    },
    null,
    2,
  ),
);
