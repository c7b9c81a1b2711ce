import { isRowId } from '@contacts/db';
import { UsageError } from './cli-context';
import type { CommandValues } from './commands/index';

/** The flags of every listing: `--limit N` (1–1000, default 50) and `--after KEY` (the last key of the previous page). */
export const pageOptions = { limit: { type: 'string' }, after: { type: 'string' } } as const;

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 1000;

export function pageLimit(values: CommandValues): number {
  const raw = values.limit;
  if (raw === undefined) return DEFAULT_PAGE_SIZE;
  const limit = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw new UsageError(`--limit must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
  }
  return limit;
}

/** `--after` for listings keyed by a numeric id. */
export function afterId(values: CommandValues): number | undefined {
  if (values.after === undefined) return undefined;
  const after = typeof values.after === 'string' && /^\d+$/.test(values.after) ? Number(values.after) : Number.NaN;
  // 0 is a valid cursor: it starts before the first row.
  if (after !== 0 && !isRowId(after))
    throw new UsageError('--after must be an id printed as next_after by the previous page');
  return after;
}

/** `--after` for listings keyed by text (client ids). */
export function afterText(values: CommandValues): string | undefined {
  const after = values.after;
  if (after === undefined) return undefined;
  if (typeof after !== 'string' || after === '' || after.includes('\u0000')) {
    throw new UsageError('--after must be a key printed as next_after by the previous page');
  }
  return after;
}

export interface Page<T> {
  items: T[];
  /** The key to pass as --after for the next page; null on the last page. */
  next_after: number | string | null;
  /** The exact command printing the next page; null on the last page. */
  next_command: string | null;
}

/**
 * One page from rows fetched with `limit + 1` (keyset pagination): the extra row only tells
 * that another page follows, and the last row shown is where the next page starts.
 */
export function toPage<T>(
  rows: T[],
  limit: number,
  key: (row: T) => number | string,
  command: { words: string; filters?: Record<string, string | number | undefined> },
): Page<T> {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  if (rows.length <= limit || last === undefined) return { items, next_after: null, next_command: null };
  const nextAfter = key(last);
  const filters = Object.entries(command.filters ?? {})
    .filter(([, value]) => value !== undefined)
    .map(([flag, value]) => ` --${flag}=${value}`)
    .join('');
  return {
    items,
    next_after: nextAfter,
    next_command: `pnpm -s cli ${command.words}${filters} --limit ${limit} --after=${nextAfter}`,
  };
}
