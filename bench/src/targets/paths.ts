import { fileURLToPath } from 'node:url';

/** The repository root (bench/dist/targets → ../../..). */
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** A path inside the repository. */
export function repoPath(rel: string): string {
  return `${REPO_ROOT}${rel}`;
}
