// Shared jest configuration: ESM mode, TypeScript through @swc/jest (legacy decorators with
// metadata, as NestJS needs), and workspace packages resolved to their sources so tests never
// depend on a stale build. Each package's jest.config.js calls preset(import.meta.url).
import { readdirSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(fileURLToPath(import.meta.url));

function workspaceMappings() {
  const map = {};
  for (const group of ['packages', 'apps']) {
    for (const name of readdirSync(join(root, group))) {
      const src = join(root, group, name, 'src', 'index.ts');
      if (existsSync(src)) map[`^@world/${name}$`] = src;
    }
  }
  // The limits alone: pure constants, cheap enough for worker threads (no zod, no schemas).
  map['^@world/contracts/limits$'] = join(root, 'packages', 'contracts', 'src', 'limits.ts');
  return map;
}

const swc = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
    keepClassNames: true,
    target: 'es2022',
  },
  module: { type: 'es6' },
  sourceMaps: 'inline',
};

/**
 * Builds the jest config for one workspace package.
 * @param {string} metaUrl import.meta.url of the package's jest.config.js
 * @param {object} [extra] fields merged over the defaults
 */
export function preset(metaUrl, extra = {}) {
  const dir = dirname(fileURLToPath(metaUrl));
  return {
    rootDir: dir,
    testEnvironment: 'node',
    extensionsToTreatAsEsm: ['.ts'],
    moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
    testMatch: [
      '<rootDir>/src/**/*.spec.ts',
      '<rootDir>/test/**/*.spec.ts',
      '<rootDir>/test/**/*.int-spec.ts',
      '<rootDir>/test/**/*.e2e-spec.ts',
    ],
    moduleNameMapper: { ...workspaceMappings(), '^(\\.{1,2}/.*)\\.js$': '$1' },
    transform: { '^.+\\.ts$': ['@swc/jest', swc] },
    cacheDirectory: join(root, '.jest-cache'),
    testTimeout: 60_000,
    ...extra,
  };
}
