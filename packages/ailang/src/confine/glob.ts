/**
 * `fs_deny_write` matching (ailang.md §1.5; world-spec §8.2 deny list): Go `path.Match` syntax
 * per path segment (`*`, `?`, `[…]` classes with ranges and `^`/`!` negation, `\` escapes) plus
 * `**` for any number of segments. Matching is case-folded with Unicode simple folding of the
 * two non-ASCII code points that fold onto ASCII letters (ſ U+017F → s, K U+212A → k), so
 * `.CLAUDE/x`, `.GITHUB/y` and `.gitmoduleſ` are denied like their lowercase forms.
 */

/** Case-folds a path or pattern for deny-list comparison. */
export function foldCase(s: string): string {
  return s
    .replace(/\u017f/g, 's')
    .replace(/\u212a/g, 'k')
    .toLowerCase();
}

/**
 * True when a slash-separated relative path matches a deny pattern (both case-folded).
 * A pattern without `/**` matches only the exact path (`.gitmodules` is the root file).
 */
export function matchDenyPattern(pattern: string, relPath: string): boolean {
  const pat = foldCase(pattern)
    .split('/')
    .filter((s) => s !== '');
  const segs = foldCase(relPath)
    .split('/')
    .filter((s) => s !== '');
  return matchSegments(pat, 0, segs, 0);
}

function matchSegments(pat: string[], pi: number, segs: string[], si: number): boolean {
  if (pi === pat.length) return si === segs.length;
  if (pat[pi] === '**') {
    // `dir/**` covers everything below dir (and dir itself, which a write cannot target).
    for (let k = si; k <= segs.length; k++) if (matchSegments(pat, pi + 1, segs, k)) return true;
    return false;
  }
  if (si === segs.length) return false;
  return matchSegment(pat[pi]!, segs[si]!) && matchSegments(pat, pi + 1, segs, si + 1);
}

/**
 * Go path.Match for one segment (no `/` inside). Malformed classes never match.
 * @internal exported for glob.spec.ts
 */
export function matchSegment(pattern: string, name: string): boolean {
  const p = [...pattern];
  const n = [...name];
  const go = (pi: number, ni: number): boolean => {
    while (pi < p.length) {
      const c = p[pi]!;
      if (c === '*') {
        for (let k = ni; k <= n.length; k++) if (go(pi + 1, k)) return true;
        return false;
      }
      if (ni >= n.length) return false;
      if (c === '?') {
        pi++;
        ni++;
        continue;
      }
      if (c === '[') {
        const r = matchClass(p, pi, n[ni]!);
        if (r === null || !r.matched) return false;
        pi = r.next;
        ni++;
        continue;
      }
      let lit = c;
      if (c === '\\') {
        if (pi + 1 >= p.length) return false;
        lit = p[++pi]!;
      }
      if (lit !== n[ni]) return false;
      pi++;
      ni++;
    }
    return ni === n.length;
  };
  return go(0, 0);
}

function matchClass(
  p: string[],
  start: number,
  ch: string,
): { matched: boolean; next: number } | null {
  let i = start + 1;
  let negate = false;
  if (p[i] === '^' || p[i] === '!') {
    negate = true;
    i++;
  }
  let matched = false;
  let first = true;
  while (i < p.length && (p[i] !== ']' || first)) {
    first = false;
    let lo = p[i]!;
    if (lo === '\\') lo = p[++i] ?? '';
    i++;
    let hi = lo;
    if (p[i] === '-' && i + 1 < p.length && p[i + 1] !== ']') {
      i++;
      hi = p[i]!;
      if (hi === '\\') hi = p[++i] ?? '';
      i++;
    }
    if (lo === '' || hi === '') return null;
    const c = ch.codePointAt(0)!;
    if (lo.codePointAt(0)! <= c && c <= hi.codePointAt(0)!) matched = true;
  }
  if (i >= p.length) return null;
  return { matched: matched !== negate, next: i + 1 };
}
