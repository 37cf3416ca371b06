import {
  AilRuntimeError,
  NIL,
  NONE,
  UNIT_V,
  listFrom,
  listItems,
  some,
  valuesEqual,
  type BuiltinImpl,
  type ListValue,
  type RuntimeApi,
  type Value,
} from '../../runtime/values.js';
import { int, list, truthy } from './common.js';

/** std/list (stdlib/catalogue/lists.ts). */

function nth(xs: ListValue, i: bigint): Value | undefined {
  if (i < 0n) return undefined;
  let cur = xs;
  for (let k = 0n; cur.k === 'cons'; k++) {
    if (k === i) return cur.head;
    cur = cur.tail;
  }
  return undefined;
}

function mapList(rt: RuntimeApi, f: Value, xs: Value): ListValue {
  return listFrom(listItems(list(xs)).map((x) => rt.apply(f, [x])));
}

function filterList(rt: RuntimeApi, p: Value, xs: Value): ListValue {
  return listFrom(listItems(list(xs)).filter((x) => truthy(rt, p, x)));
}

function foldl(rt: RuntimeApi, f: Value, acc: Value, xs: Value): Value {
  let a = acc;
  for (const x of listItems(list(xs))) a = rt.apply(f, [a, x]);
  return a;
}

function flatMap(rt: RuntimeApi, f: Value, xs: Value): ListValue {
  const out: Value[] = [];
  for (const x of listItems(list(xs))) out.push(...listItems(list(rt.apply(f, [x]))));
  return listFrom(out);
}

/** The elements without repeats, first occurrences kept, in order. */
function dedup(items: Value[]): Value[] {
  const out: Value[] = [];
  for (const x of items) if (!out.some((y) => valuesEqual(x, y))) out.push(x);
  return out;
}

export const LIST_IMPLS: Record<string, BuiltinImpl> = {
  _list_length: ([xs]) => BigInt(listItems(list(xs!)).length),
  _list_nth: ([xs, i]) => {
    const v = nth(list(xs!), int(i!));
    if (v === undefined)
      throw new AilRuntimeError(
        `_list_nth: index ${int(i!)} out of range for a list of ${listItems(list(xs!)).length}`,
      );
    return v;
  },
  _list_member: ([x, xs]) => listItems(list(xs!)).some((y) => valuesEqual(y, x!)),
  _list_dedup: ([xs]) => listFrom(dedup(listItems(list(xs!)))),
  _list_intersect: ([xs, ys]) => {
    const b = listItems(list(ys!));
    return listFrom(listItems(list(xs!)).filter((x) => b.some((y) => valuesEqual(x, y))));
  },
  _list_union: ([xs, ys]) => listFrom(dedup([...listItems(list(xs!)), ...listItems(list(ys!))])),
  _list_difference: ([xs, ys]) => {
    const b = listItems(list(ys!));
    return listFrom(listItems(list(xs!)).filter((x) => !b.some((y) => valuesEqual(x, y))));
  },
  'std/list.head': ([xs]) => (list(xs!).k === 'cons' ? some((xs as { head: Value }).head) : NONE),
  'std/list.tail': ([xs]) => {
    const l = list(xs!);
    return l.k === 'cons' ? l.tail : NIL;
  },
  'std/list.last': ([xs]) => {
    const items = listItems(list(xs!));
    return items.length === 0 ? NONE : some(items[items.length - 1]!);
  },
  'std/list.nth': ([xs, i]) => {
    const v = nth(list(xs!), int(i!));
    return v === undefined ? NONE : some(v);
  },
  'std/list.reverse': ([xs]) => listFrom(listItems(list(xs!)).reverse()),
  'std/list.concat': ([xs, ys]) => listFrom([...listItems(list(xs!)), ...listItems(list(ys!))]),
  'std/list.take': ([n, xs]) => {
    const k = int(n!);
    const items = listItems(list(xs!));
    return listFrom(
      k <= 0n ? [] : items.slice(0, k > BigInt(items.length) ? items.length : Number(k)),
    );
  },
  'std/list.drop': ([n, xs]) => {
    let k = int(n!);
    let cur = list(xs!);
    while (k > 0n && cur.k === 'cons') {
      cur = cur.tail;
      k--;
    }
    return cur;
  },
  'std/list.zip': ([xs, ys]) => {
    const a = listItems(list(xs!));
    const b = listItems(list(ys!));
    const n = Math.min(a.length, b.length);
    return listFrom(a.slice(0, n).map((x, i) => ({ k: 'tuple', items: [x, b[i]!] })));
  },
  'std/list.contains': ([xs, x]) => listItems(list(xs!)).some((y) => valuesEqual(y, x!)),
  _list_map: ([f, xs], rt) => mapList(rt, f!, xs!),
  _list_filter: ([p, xs], rt) => filterList(rt, p!, xs!),
  _list_foldl: ([f, acc, xs], rt) => foldl(rt, f!, acc!, xs!),
  'std/list.foldr': ([f, acc, xs], rt) => {
    let a = acc!;
    const items = listItems(list(xs!));
    for (let i = items.length - 1; i >= 0; i--) a = rt.apply(f!, [items[i]!, a]);
    return a;
  },
  'std/list.sortBy': ([cmp, xs], rt) => {
    const items = listItems(list(xs!));
    // Array.prototype.sort is stable (ECMAScript 2019), like a merge sort.
    return listFrom(
      items.sort((a, b) => {
        const c = int(rt.apply(cmp!, [a, b]));
        return c < 0n ? -1 : c > 0n ? 1 : 0;
      }),
    );
  },
  'std/list.any': ([p, xs], rt) => listItems(list(xs!)).some((x) => truthy(rt, p!, x)),
  'std/list.all': ([p, xs], rt) => listItems(list(xs!)).every((x) => truthy(rt, p!, x)),
  'std/list.findIndex': ([p, xs], rt) => {
    const i = listItems(list(xs!)).findIndex((x) => truthy(rt, p!, x));
    return i < 0 ? NONE : some(BigInt(i));
  },
  'std/list.zipWith': ([f, xs, ys], rt) => {
    const a = listItems(list(xs!));
    const b = listItems(list(ys!));
    const n = Math.min(a.length, b.length);
    return listFrom(a.slice(0, n).map((x, i) => rt.apply(f!, [x, b[i]!])));
  },
  'std/list.flatMap': ([f, xs], rt) => flatMap(rt, f!, xs!),
  'std/list.mapE': ([f, xs], rt) => mapList(rt, f!, xs!),
  'std/list.filterE': ([p, xs], rt) => filterList(rt, p!, xs!),
  'std/list.foldlE': ([f, acc, xs], rt) => foldl(rt, f!, acc!, xs!),
  'std/list.flatMapE': ([f, xs], rt) => flatMap(rt, f!, xs!),
  'std/list.forEachE': ([f, xs], rt) => {
    for (const x of listItems(list(xs!))) rt.apply(f!, [x]);
    return UNIT_V;
  },
};
