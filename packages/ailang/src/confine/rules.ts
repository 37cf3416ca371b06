import { foldCase, matchDenyPattern } from './glob.js';

/**
 * The pure half of World's one confinement rule (world-spec §2.3, §8.2; ailang.md §1.5): how a
 * path is normalized, what counts as inside, which writes are refused, and the exact refusal
 * texts of the two surfaces that report them — the tools (`<verb> <path>: …`, world-spec
 * §3.1–§3.3) and running programs (`<builtin>: …`, world-spec §8.2). `resolve.ts` applies it to
 * the file system; the broker's workspace handlers, the AILANG sandbox and the toolchain's path
 * checks all call that one function.
 */

/** What an operation does with a path: reads look; writes create, change, move or remove. */
export type Access = 'read' | 'write';

/** Why a path is refused. */
export type Refusal =
  /** empty, or holding NUL: names nothing */
  | { kind: 'invalid' }
  /** `..` past the root, an absolute path outside it, or a symlink leading out */
  | { kind: 'escape' }
  /** a regular file with more than one link: a hard link may name a file outside the root */
  | { kind: 'links'; links: number }
  /** more symlinks than the kernel follows (a cycle) */
  | { kind: 'loop' }
  /** a write under a `.git` directory (or to a `.git` pointer file) at any depth */
  | { kind: 'git' }
  /** a write matching an fs_deny_write pattern */
  | { kind: 'deny'; pattern: string };

/**
 * Lexically normalizes a relative `/`-separated path: drops empty and `.` segments, applies
 * `..`. Returns null when `..` would climb above the root.
 */
export function normalizeSegments(path: string): string[] | null {
  const out: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (out.length === 0) return null;
      out.pop();
      continue;
    }
    out.push(segment);
  }
  return out;
}

/** True when `candidate` is `root` or lies under it (a name prefix such as `ep` vs `ep2` is not). */
export function isInside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root.endsWith('/') ? root : `${root}/`);
}

/**
 * The write rule (world-spec §2.3, §8.2): a path with a `.git` component at any depth — a
 * nested repository's `.git` directory or pointer file included, every case variant — is
 * read-only, whatever the security mode (whoever next runs git there would run its hooks and
 * config); then the policy's fs_deny_write patterns apply, case-folded (glob.ts).
 * @param segments the normalized relative path (lexical, and again after symlinks are resolved)
 * @param denyWrite the policy's fs_deny_write patterns
 * @returns the refusal, or null when the write is allowed
 */
export function writeRule(
  segments: readonly string[],
  denyWrite: readonly string[],
): Refusal | null {
  if (segments.some((s) => foldCase(s) === '.git')) return { kind: 'git' };
  const rel = segments.join('/');
  if (rel === '') return null;
  const pattern = denyWrite.find((p) => matchDenyPattern(p, rel));
  return pattern === undefined ? null : { kind: 'deny', pattern };
}

/**
 * True for a regular file with more than one link (world-spec §8.2: confinement must not be
 * escaped; a hard link is a second name of a file that may lie outside the worktree, and its
 * other names cannot be found from inside).
 * @param st an lstat or fstat result
 */
export function hasExtraLinks(st: { isFile(): boolean; nlink: number }): boolean {
  return st.isFile() && st.nlink > 1;
}

/** `path "<p>" escapes sandbox "<root>"`, with the hard-link reason when that is why. */
function escapeText(path: string, root: string, refusal: Refusal): string {
  const base = `path "${path}" escapes sandbox "${root}"`;
  return refusal.kind === 'links' ? `${base}: it has ${refusal.links} hard links` : base;
}

/**
 * A refusal as the tools report it (world-spec §3.1–§3.3, §8.2; ailang.md §1.5 measured shapes):
 * `read /etc/hosts: path "/etc/hosts" escapes sandbox "<root>"`,
 * `write .git/config: .git/ is read-only to the lane's tools`,
 * `write .ailang/x.ail: matches fs_deny_write ".ailang/**" — read-only under this policy`.
 * @param verb the tool's verb or op (`read`, `write`, `edit`, `run`, `check`, `open`…)
 * @param path the path as the caller gave it
 * @param root the root as the caller knows it (printed)
 */
export function toolRefusalText(verb: string, path: string, root: string, r: Refusal): string {
  switch (r.kind) {
    case 'invalid':
      return `${verb}: path ${JSON.stringify(path)} is empty or holds NUL`;
    case 'loop':
      return `${verb} ${path}: path "${path}": too many levels of symbolic links`;
    case 'git':
      return `${verb} ${path}: .git/ is read-only to the lane's tools`;
    case 'deny':
      return `${verb} ${path}: matches fs_deny_write "${r.pattern}" — read-only under this policy`;
    default:
      return `${verb} ${path}: ${escapeText(path, root, r)}`;
  }
}

/**
 * A refusal as a running program reports it, after `Error: execution failed: ` (world-spec
 * §8.2): `readFile: path "/etc/hosts" escapes sandbox "<root>"`,
 * `writeFile: E_FS_PROTECTED: path ".git/config" is under .git, which is read-only in restricted
 * mode`, `writeFile: E_FS_PROTECTED: path "…" matches fs_deny_write "…" — read-only under this
 * policy`. Under trusted_host (the Env variant) `.git` stays read-only and the text says so.
 * @param op the builtin (`readFile`, `writeFile`…)
 * @param mode the policy's security_mode
 */
export function programRefusalText(
  op: string,
  path: string,
  root: string,
  r: Refusal,
  mode: 'restricted' | 'trusted_host',
): string {
  switch (r.kind) {
    case 'invalid':
      return `${op}: invalid path ${JSON.stringify(path)}`;
    case 'loop':
      return `${op}: open ${path}: too many levels of symbolic links`;
    case 'git':
      return `${op}: E_FS_PROTECTED: path "${path}" is under .git, which is read-only ${
        mode === 'restricted' ? 'in restricted mode' : 'in every security mode'
      }`;
    case 'deny':
      return `${op}: E_FS_PROTECTED: path "${path}" matches fs_deny_write "${r.pattern}" — read-only under this policy`;
    default:
      return `${op}: ${escapeText(path, root, r)}`;
  }
}
