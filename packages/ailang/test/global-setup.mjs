// Integration tests run the embedded runner's worker thread from dist/ (worker threads cannot
// load TypeScript sources). Rebuild this package when a source file is newer than its build.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function newest(dir, skip) {
  let t = 0;
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    const st = statSync(full);
    if (st.isDirectory()) t = Math.max(t, newest(full, skip));
    else if (!skip(name)) t = Math.max(t, st.mtimeMs);
  }
  return t;
}

export default function globalSetup() {
  const marker = join(root, 'dist', 'policy', 'worker.js');
  const srcTime = newest(join(root, 'src'), (n) => n.endsWith('.spec.ts'));
  const distTime = existsSync(marker) ? newest(join(root, 'dist'), () => false) : 0;
  if (srcTime > distTime) {
    // The package's own build script (swc; the same command turbo runs).
    execFileSync('pnpm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  }
}
