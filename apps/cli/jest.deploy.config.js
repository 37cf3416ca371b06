// The deployment test (test/deploy/*.deploy-spec.ts): the compose stack on a real Docker engine.
// Not part of `pnpm test`; run by `pnpm test:deploy` (and .ci/run, right after `pnpm test`).
import { preset } from '../../jest.preset.js';

export default preset(import.meta.url, {
  testMatch: ['<rootDir>/test/deploy/*.deploy-spec.ts'],
  testTimeout: 20 * 60_000,
});
