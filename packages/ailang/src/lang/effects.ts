import type { Expr, FuncDecl, Pattern } from './ast.js';
import type { ModuleScope } from './checker/scope.js';
import type { Pos } from './diagnostics.js';
import { rowText, signatureText } from './print.js';

/**
 * The effect checker (ailang.md §3 "Static check"): the effects a function body uses must lie
 * within its declared row. The embedded subset's rule is conservative (ailang.md §3 invites a
 * subset to pick one): a body uses the declared effects of every global function or builtin
 * it mentions — called or passed as a value — including inside lambdas it creates, because a
 * lambda's effects are charged to the function that creates it. Calls through local function
 * values add nothing: whatever they do was charged where the closure was made. Every effect a
 * run performs is therefore charged to `main` (or to a function `main` calls, whose row `main`
 * then pays), so the policy gate's static check bounds the runtime.
 */

/** One effect error: a function whose body uses effects outside its row. */
export interface EffectViolation {
  function: string;
  pos: Pos;
  missing: string[];
  current: string;
  suggested: string;
}

/**
 * Checks every function of a module.
 * @returns one violation per function (and per anonymous function with a declared row)
 */
export function checkEffects(decls: readonly FuncDecl[], scope: ModuleScope): EffectViolation[] {
  const out: EffectViolation[] = [];
  for (const d of decls) {
    const walker = new EffectWalker(scope, out);
    const used = walker.collect(
      d.body,
      d.params.map((p) => p.name),
    );
    const declared = new Set((d.effects?.labels ?? []).map((l) => l.name));
    const missing = [...used].filter((e) => !declared.has(e)).sort();
    if (missing.length > 0) {
      const current = signatureText(d) + rowText(d.effects);
      const labels = [...new Set([...declared, ...missing])].sort();
      const suggestedRow = {
        labels: labels.map((name) => ({ name })),
        vars: d.effects?.vars ?? [],
      };
      const suggested = signatureText({ ...d, pure: false }) + rowText(suggestedRow);
      out.push({ function: d.name, pos: d.pos, missing, current, suggested });
    }
  }
  return out;
}

/** The text of an effect error, in the shape the real checker prints (ailang.md §1.3). */
export function effectErrorText(module: string, v: EffectViolation): string {
  return [
    `effect checking failed in ${module}: Effect checking failed for function '${v.function}'`,
    '  Function uses effects not declared in signature',
    '',
    `  Missing effects: ${v.missing.join(', ')}`,
    '',
    `  Current signature: ${v.current}`,
    `  Suggested fix:     ${v.suggested}`,
  ].join('\n');
}

/**
 * The local names in scope during one depth-first walk: a count per name, raised on entering a
 * binder and lowered on leaving it. A copied set per binder made a chain of n lets cost O(n²)
 * memory (5,000 lets exhausted a 256 MiB worker heap).
 */
class BoundNames {
  private readonly counts = new Map<string, number>();

  has(name: string): boolean {
    return (this.counts.get(name) ?? 0) > 0;
  }

  /** Runs `f` with `names` bound. */
  with<T>(names: readonly string[], f: () => T): T {
    for (const n of names) this.counts.set(n, (this.counts.get(n) ?? 0) + 1);
    try {
      return f();
    } finally {
      for (const n of names) this.counts.set(n, this.counts.get(n)! - 1);
    }
  }
}

class EffectWalker {
  private readonly bound = new BoundNames();

  constructor(
    private readonly scope: ModuleScope,
    private readonly out: EffectViolation[],
  ) {}

  /** The effect labels `e` uses, with `params` (and nothing else) local. */
  collect(e: Expr, params: readonly string[]): Set<string> {
    const used = new Set<string>();
    this.bound.with(params, () => this.walk(e, used));
    return used;
  }

  private walk(e: Expr, used: Set<string>): void {
    const go = (x: Expr): void => this.walk(x, used);
    const within = (names: readonly string[], f: () => void): void => this.bound.with(names, f);
    switch (e.k) {
      case 'int':
      case 'float':
      case 'str':
      case 'bool':
      case 'unit':
      case 'ctor':
        return;
      case 'interp':
        for (const p of e.parts) if (typeof p !== 'string') go(p);
        return;
      case 'var':
        if (!this.bound.has(e.name))
          this.scope.values.get(e.name)?.effects.forEach((x) => used.add(x));
        return;
      case 'qvar':
        this.scope.qualified
          .get(e.qualifier)
          ?.values.get(e.name)
          ?.effects.forEach((x) => used.add(x));
        return;
      case 'list':
      case 'tuple':
        e.items.forEach((x) => go(x));
        return;
      case 'record':
        e.fields.forEach((f) => go(f.value));
        return;
      case 'update':
        go(e.base);
        e.fields.forEach((f) => go(f.value));
        return;
      case 'field':
        go(e.target);
        return;
      case 'call':
        go(e.fn);
        e.args.forEach((x) => go(x));
        return;
      case 'lambda': {
        const own = new Set<string>();
        within(
          e.params.map((p) => p.name),
          () => this.walk(e.body, own),
        );
        own.forEach((x) => used.add(x));
        if (e.effects !== null) {
          const declared = new Set(e.effects.labels.map((l) => l.name));
          const missing = [...own].filter((x) => !declared.has(x)).sort();
          if (missing.length > 0) {
            const labels = [...new Set([...declared, ...missing])].sort();
            this.out.push({
              function: '<anonymous>',
              pos: e.pos,
              missing,
              current: `func(…)${rowText(e.effects)}`,
              suggested: `func(…)${rowText({ labels: labels.map((name) => ({ name })), vars: e.effects.vars })}`,
            });
          }
        }
        return;
      }
      case 'let': {
        const names = patternNames(e.pat);
        if (e.rec) within(names, () => go(e.value));
        else go(e.value);
        within(names, () => go(e.body));
        return;
      }
      case 'seq':
        go(e.first);
        go(e.then);
        return;
      case 'if':
        go(e.cond);
        go(e.then);
        go(e.else);
        return;
      case 'match':
        go(e.scrutinee);
        for (const arm of e.arms) {
          within(patternNames(arm.pat), () => {
            if (arm.guard) go(arm.guard);
            go(arm.body);
          });
        }
        return;
      case 'binop':
        go(e.left);
        go(e.right);
        return;
      case 'unop':
        go(e.operand);
        return;
    }
  }
}

function patternNames(p: Pattern): string[] {
  const into: string[] = [];
  bindNames(p, into);
  return into;
}

function bindNames(p: Pattern, into: string[]): void {
  switch (p.k) {
    case 'pvar':
      into.push(p.name);
      return;
    case 'pctor':
      p.args.forEach((a) => bindNames(a, into));
      return;
    case 'plist':
      p.items.forEach((a) => bindNames(a, into));
      if (p.rest) bindNames(p.rest, into);
      return;
    case 'pcons':
      bindNames(p.head, into);
      bindNames(p.tail, into);
      return;
    case 'ptuple':
      p.items.forEach((a) => bindNames(a, into));
      return;
    case 'precord':
      p.fields.forEach((f) => bindNames(f.pat, into));
      return;
    default:
      return;
  }
}
