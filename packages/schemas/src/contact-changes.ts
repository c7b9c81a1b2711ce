import { z } from 'zod';
import { contactV4WithEtag } from './contact-v4';
import { listContactsQueryV4 } from './list-query';

const oneValue = (field: string) => z.string({ error: `The ${field} parameter must be given once.` }).trim();

/**
 * GET /v4/contacts/changes query string. The cursor and the sync token are opaque here; the API
 * decodes them (they name database snapshots and the member they belong to).
 */
export const contactChangesQueryV4 = z.object({
  limit: listContactsQueryV4.shape.limit,
  cursor: oneValue('cursor')
    .min(1, 'The cursor is not valid; use next_cursor from a previous page.')
    .optional()
    .describe(
      'The next_cursor of the previous page; it carries the rest of the query, sync_token and limit included (a sync_token sent with it must be the one it was issued for: 422 otherwise; `limit` may change between pages). The cursors of GET /v4/contacts are not accepted here, nor these there.',
    ),
  sync_token: oneValue('sync_token')
    .min(1, 'The sync token is not valid; start again with a full sync (no sync_token).')
    .optional()
    .describe('The meta.sync_token of the last page of the previous sync. Without it: a full listing.'),
});

export type ContactChangesQueryV4 = z.output<typeof contactChangesQueryV4>;

/** One page of the change feed. */
export const contactChangesPageV4 = z.object({
  data: z
    .array(contactV4WithEtag)
    .describe('Contacts created or changed since the sync token (all of them without one), each with its etag.'),
  deleted: z.array(z.int()).describe('Ids of contacts deleted since the sync token; never also in data.'),
  meta: z.object({
    next_cursor: z.string().nullable().describe('Null on the last page.'),
    limit: z.int(),
    sync_token: z
      .string()
      .optional()
      .describe('On the last page only: pass it as sync_token next time to get what changed since.'),
  }),
});

export type ContactChangesPageV4 = z.output<typeof contactChangesPageV4>;
