import { z } from 'zod';

import { MAX_LIST_LIMIT } from './limits';
import { MAX_ROW_ID, rowIdDigits, rowIdMessage } from './row-id';
import { isStorableText } from './validation';

export const DEFAULT_LIST_LIMIT = 100;

/**
 * The keyset cursor: the id of the last contact of the previous page, and the query the listing
 * was asked (its filters and page size). A listing walks the caller's contacts by id, so rows
 * inserted meanwhile land after it or are already behind it: no row is seen twice or skipped.
 * The query travels with it, as the change feed's cursors carry theirs: a client that sends the
 * cursor alone gets the next page of the same listing, not of an unfiltered one. Opaque to
 * clients (base64url JSON) so that it can change.
 */
export interface ListCursor {
  after_id: number;
  /** Absent in the cursors of releases before it travelled (`{"a":n}`), which are still taken. */
  query?: ListedQuery;
}

/** What a listing asks, with the page size it was given or the default. */
export interface ListedQuery {
  limit: number;
  q?: string;
  group_id?: number;
  updated_since?: Date;
}

export function encodeCursor(cursor: ListCursor): string {
  const query = cursor.query;
  const payload = query
    ? {
        k: 'l',
        a: cursor.after_id,
        l: query.limit,
        ...(query.q ? { q: query.q } : {}),
        ...(query.group_id !== undefined ? { g: query.group_id } : {}),
        ...(query.updated_since !== undefined ? { u: query.updated_since.toISOString() } : {}),
      }
    : { a: cursor.after_id };
  return Buffer.from(JSON.stringify(payload)).toString('base64url');
}

const oneValue = (field: string) => z.string({ error: `The ${field} parameter must be given once.` }).trim();

/** An instant as `updated_since` takes it: RFC 3339 with `T`, seconds and `Z` or an offset, in upper case. */
const rfc3339DateTime = z.iso.datetime({ offset: true, error: 'The updated since must be an RFC 3339 date-time.' });

/** A listing's filters as the query string gives them (every value arrives as a string); a cursor's are held to the same rules. */
const listFilters = z.object({
  q: oneValue('q')
    .max(255, 'The search must not be greater than 255 characters.')
    .optional()
    .describe('Case-insensitive search in name, e-mail and company name.'),
  group_id: oneValue('group_id')
    .pipe(rowIdDigits(rowIdMessage('group id')))
    // Documented as the integer it stands for (a query value is always text).
    .meta({ type: 'integer', minimum: 1, maximum: MAX_ROW_ID })
    .optional()
    .describe('Only the contacts in this group.'),
  updated_since: oneValue('updated_since')
    .pipe(rfc3339DateTime)
    .transform((value) => new Date(value))
    // The pattern is the parser's own: RFC 3339's format also allows a lowercase `t`/`z`, a
    // space for `T` and a leap second, which this parser refuses.
    .meta({ type: 'string', format: 'date-time', pattern: rfc3339DateTime.def.pattern?.source })
    .optional()
    .describe('Only contacts updated at or after this instant (RFC 3339).'),
});

/** The keys of a listing cursor: kind, after id, limit, and the filters q, group_id, updated_since. */
const CURSOR_KEYS = new Set(['k', 'a', 'l', 'q', 'g', 'u']);

const isRowIdOrZero = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= MAX_ROW_ID;

export function decodeCursor(value: string): ListCursor | undefined {
  let parsed: Record<string, unknown>;
  try {
    const json: unknown = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined;
    parsed = json as Record<string, unknown>;
  } catch {
    return undefined;
  }
  // 0 (before the first row) or a row id: a larger one is no cursor of ours.
  if (!isRowIdOrZero(parsed.a)) return undefined;
  // An earlier release's: the id alone (the change feed's cursors carry `a` too, and more).
  if (Object.keys(parsed).join() === 'a') return { after_id: parsed.a };
  // The change feed's cursors are of another kind (`k`), and are refused here.
  if (parsed.k !== 'l' || Object.keys(parsed).some((key) => !CURSOR_KEYS.has(key))) return undefined;
  const { l: limit, q, g: groupId, u: updatedSince } = parsed;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) return undefined;
  // The filters as the query string would have given them, under the same rules: a cursor can
  // carry no filter the query string refuses (a NUL, which the guard refuses in any query value
  // before the schema; a date PostgreSQL cannot hold).
  const asText = (value: unknown) => (typeof value === 'number' ? String(value) : value);
  if (typeof q === 'string' && !isStorableText(q)) return undefined;
  const filters = listFilters.safeParse({ q, group_id: asText(groupId), updated_since: updatedSince });
  if (!filters.success) return undefined;
  const { q: search, group_id, updated_since } = filters.data;
  return {
    after_id: parsed.a,
    query: {
      limit,
      ...(search !== undefined ? { q: search } : {}),
      ...(group_id !== undefined ? { group_id } : {}),
      ...(updated_since !== undefined ? { updated_since } : {}),
    },
  };
}

/** GET /v4/contacts query string (every value arrives as a string). */
export const listContactsQueryV4 = z.object({
  limit: oneValue('limit')
    .regex(/^\d{1,7}$/, `The limit must be an integer between 1 and ${MAX_LIST_LIMIT}.`)
    .transform(Number)
    .refine((n) => n >= 1 && n <= MAX_LIST_LIMIT, `The limit must be an integer between 1 and ${MAX_LIST_LIMIT}.`)
    // Documented as the integer it stands for (a query value is always text); zod keeps no
    // `default` on the input side of a transform, so the description states it.
    .meta({ type: 'integer', minimum: 1, maximum: MAX_LIST_LIMIT })
    .optional()
    .describe(`Page size, 1 to ${MAX_LIST_LIMIT} (default ${DEFAULT_LIST_LIMIT}).`),
  cursor: oneValue('cursor')
    .transform((value, ctx) => {
      const cursor = decodeCursor(value);
      if (!cursor) {
        ctx.addIssue({ code: 'custom', message: 'The cursor is not valid; use next_cursor from a previous page.' });
        return z.NEVER;
      }
      return cursor;
    })
    .optional()
    .describe(
      'The next_cursor of the previous page. It carries the query it was issued for (q, group_id, updated_since, limit): send it alone, or with the same filters (a different one → 422); `limit` may change between pages.',
    ),
  ...listFilters.shape,
});

export type ListContactsQueryV4 = z.output<typeof listContactsQueryV4>;

const sameValue = (a: unknown, b: unknown) =>
  a instanceof Date && b instanceof Date ? a.getTime() === b.getTime() : a === b;

/**
 * The listing a request asks for: its own query, or with a cursor the cursor's, which a filter
 * sent beside it must repeat (`limit` may change between pages). Field errors when a filter
 * differs: the cursor belongs to another listing.
 */
export function listedQueryOf(
  request: ListContactsQueryV4,
): { ok: true; query: ListedQuery; afterId?: number } | { ok: false; fields: Record<string, string[]> } {
  const { cursor, limit, q, ...others } = request;
  // An empty search is no search, as the listing has always read it.
  const filters: Omit<ListContactsQueryV4, 'cursor' | 'limit'> = { ...others, ...(q ? { q } : {}) };
  const carried = cursor?.query;
  if (!cursor) return { ok: true, query: { limit: limit ?? DEFAULT_LIST_LIMIT, ...filters } };
  if (!carried)
    return { ok: true, query: { limit: limit ?? DEFAULT_LIST_LIMIT, ...filters }, afterId: cursor.after_id };
  const differing = (['q', 'group_id', 'updated_since'] as const).filter(
    (name) => filters[name] !== undefined && !sameValue(filters[name], carried[name]),
  );
  if (differing.length > 0) {
    return {
      ok: false,
      fields: {
        cursor: [
          `The cursor belongs to a listing with another ${differing.join(', ')}; send the cursor alone (it carries ` +
            'its query), or start again without it.',
        ],
      },
    };
  }
  return { ok: true, query: { ...carried, limit: limit ?? carried.limit }, afterId: cursor.after_id };
}

export const contactListV4Meta = z.object({
  next_cursor: z.string().nullable(),
  limit: z.int(),
});
