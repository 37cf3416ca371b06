/**
 * Paging laws of the ledger's reads (world-spec §5.1, §5.6, §5.8). Pure.
 */
import { PAGE_DEFAULT, PAGE_MAX } from '@world/contracts';

/**
 * The page size a read uses: PAGE_DEFAULT (100) when the limit is absent or < 1, at most
 * PAGE_MAX (500). Source: world-spec §5.1.
 */
export function pageLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit) || limit < 1) return PAGE_DEFAULT;
  return Math.min(Math.floor(limit), PAGE_MAX);
}

/**
 * The leading run of consecutive entry indexes starting at `from`: a log page stops at the first
 * absent index (world-spec §5.8, world-internals §12 incident 16).
 * @param items entries in ascending index order, all at or after `from`
 */
export function denseRun<T>(items: T[], from: number, indexOf: (item: T) => number): T[] {
  let i = 0;
  while (i < items.length && indexOf(items[i]!) === from + i) i++;
  return items.slice(0, i);
}
