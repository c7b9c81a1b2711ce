import { z } from 'zod';

import { MAX_LIST_LIMIT } from './limits';
import { MAX_ROW_ID, rowIdDigits, rowIdMessage } from './row-id';

export const DEFAULT_LIST_LIMIT = 100;

/**
 * The keyset cursor: the id of the last contact of the previous page. A listing walks the
 * caller's contacts by id, so rows inserted meanwhile land after it or are already behind it:
 * no row is seen twice or skipped. Opaque to clients (base64url JSON) so that it can change.
 */
export interface ListCursor {
  after_id: number;
}

export function encodeCursor(cursor: ListCursor): string {
  return Buffer.from(JSON.stringify({ a: cursor.after_id })).toString('base64url');
}

export function decodeCursor(value: string): ListCursor | undefined {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    // Exactly the listing's one key: the change feed's cursors carry `a` too, and more.
    if (typeof parsed !== 'object' || parsed === null || Object.keys(parsed).join() !== 'a') return undefined;
    const id = (parsed as { a: unknown }).a;
    // 0 (before the first row) or a row id: a larger one is no cursor of ours.
    return typeof id === 'number' && Number.isSafeInteger(id) && id >= 0 && id <= MAX_ROW_ID
      ? { after_id: id }
      : undefined;
  } catch {
    return undefined;
  }
}

const oneValue = (field: string) => z.string({ error: `The ${field} parameter must be given once.` }).trim();

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
    .describe('The next_cursor of the previous page.'),
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
    .pipe(z.iso.datetime({ offset: true, error: 'The updated since must be an RFC 3339 date-time.' }))
    .transform((value) => new Date(value))
    .meta({ type: 'string', format: 'date-time' })
    .optional()
    .describe('Only contacts updated at or after this instant (RFC 3339).'),
});

export type ListContactsQueryV4 = z.output<typeof listContactsQueryV4>;

export const contactListV4Meta = z.object({
  next_cursor: z.string().nullable(),
  limit: z.int(),
});
