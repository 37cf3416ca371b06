// `pnpm bench` (root package.json: build, then this): the harness lives in bench/src and runs
// from its build, bench/dist. See bench/README.md.
import { main } from './dist/main.js';
import { runTlogBench } from './tlog.mjs';

// The transparency log's costs (issue 12) after the main harness.
main()
  .then(() => runTlogBench())
  .catch((err) => {
    process.stderr.write(`bench failed: ${err?.stack ?? String(err)}\n`);
    process.exit(1);
  });
