import type { RawQuery, RawResult } from '@world/runtime';

/** The PostgreSQL types the broker's parameters are cast to in statement text. */
type PgType = 'text' | 'bigint' | 'boolean' | 'bytea';

/**
 * A placeholder for the parameter `key`: `$n::type`, where n is the key's position in order of
 * first use; a key used again gets the same number (and must keep its type).
 */
export type Bind<K extends string> = (key: K, type: PgType) => string;

/**
 * One named statement whose parameters are read by name: `params(values)` lays `values` out in
 * placeholder order. The text depends only on how it was built (never on values), so the name
 * stands for one text and PostgreSQL prepares it once per connection.
 */
export interface Statement<V> {
  readonly name: string;
  readonly text: string;
  /**
   * The values in placeholder order.
   * @throws Error naming the statement and the key when `values` has no own property for a key
   *   its text uses (a missing value would silently bind NULL)
   */
  params(values: V): unknown[];
  /** Runs it with `values` on `query` (the pool, or the caller's transaction). */
  run<T>(query: RawQuery, values: V): Promise<RawResult<T>>;
}

/**
 * Builds a named statement from a text written with `bind(key, type)` placeholders instead of
 * hand-counted `$n` offsets: composing fragments (a CTE of objects, a lease claim) never shifts
 * another fragment's numbers.
 * @param name the prepared statement's name (one name, one text)
 * @param build writes the text, calling `bind` for every parameter
 * @throws Error when one key is bound with two types
 */
export function statement<V extends object>(
  name: string,
  build: (bind: Bind<Extract<keyof V, string>>) => string,
): Statement<V> {
  const keys: string[] = [];
  const types = new Map<string, PgType>();
  const text = build((key, type) => {
    const known = types.get(key);
    if (known !== undefined && known !== type)
      throw new Error(`statement ${name}: parameter "${key}" is bound as ${known} and ${type}`);
    if (known === undefined) {
      types.set(key, type);
      keys.push(key);
    }
    return `$${keys.indexOf(key) + 1}::${type}`;
  });
  const params = (values: V): unknown[] =>
    keys.map((key) => {
      if (!Object.hasOwn(values, key))
        throw new Error(`statement ${name}: no value for parameter "${key}"`);
      return (values as Record<string, unknown>)[key];
    });
  return {
    name,
    text,
    params,
    run: <T>(query: RawQuery, values: V) => query<T>(text, params(values), name),
  };
}

/**
 * One statement per count of a repeated part (objects in a CTE): built on first use, then kept.
 * @param build the statement for `count` (its name should carry the count)
 */
export function statementsByCount<V>(
  build: (count: number) => Statement<V>,
): (count: number) => Statement<V> {
  const built = new Map<number, Statement<V>>();
  return (count) => {
    let found = built.get(count);
    if (found === undefined) {
      found = build(count);
      built.set(count, found);
    }
    return found;
  };
}
