import { currentSnapshot, listContactChanges } from '@contacts/db';
import { contactChangesPageV4, contactChangesQueryV4, DEFAULT_LIST_LIMIT, toContactV4 } from '@contacts/schemas';
import { Router } from '@koa/router';
import { listContacts } from '../../domain/contacts';
import { ApiError, validationFailed } from '../../http/errors';
import { jsonWithEtag } from '../../http/etag';
import { koaGuard } from '../../http/guard';
import {
  type ChangesCursor,
  decodeChangesCursor,
  decodeSyncToken,
  encodeChangesCursor,
  encodeSyncToken,
  isExpired,
} from '../../sync/sync-token';
import { callerOf, type RouteDependencies } from '../context';
import { v4Error } from '../contract-parts';

export interface ChangeFeedOptions {
  /** How long a sync token stays usable, in seconds (SYNC_TOKEN_TTL). */
  syncTokenTtlSeconds: number;
}

const syncTokenExpired = () =>
  new ApiError(
    410,
    'sync_token_expired',
    'The sync token has expired; start again with a full sync (GET /v4/contacts/changes without sync_token).',
  );
const badSyncToken = () =>
  validationFailed({ sync_token: ['The sync token is not valid; start again with a full sync (no sync_token).'] });
const badCursor = () =>
  validationFailed({ cursor: ['The cursor is not valid; use next_cursor from a previous page.'] });

/**
 * GET /v4/contacts/changes: without sync_token, the member's whole book; with one, what changed
 * since it (upserts in `data`, removals in `deleted`). Both are paged by id, and the last page
 * hands out the next sync token.
 *
 * Why no change is missed: the next token's snapshot is taken *before* the first page is read,
 * and carried in every cursor. A change by a transaction visible in that snapshot had committed
 * before any page was read, so the page covering its id saw it (or saw the contact gone, with its
 * tombstone). A change by any other transaction (still open then, or started later) is not visible
 * in the next token's snapshot, so the next sync reports it, whatever id range it touched and
 * whenever it commits. Reporting a change twice is harmless: an upsert or removal is idempotent.
 */
export function changeRoutes(
  { db, publicUrl, read, rateLimit }: RouteDependencies,
  options: ChangeFeedOptions,
): Router {
  const router = new Router();
  const usable = (stamp: { issuedAt: number }) => {
    if (isExpired(stamp.issuedAt, options.syncTokenTtlSeconds)) throw syncTokenExpired();
  };

  const changes = koaGuard({
    operationId: 'listContactChanges',
    summary: 'A full listing (no sync_token) or the changes since a sync token, for keeping a copy in sync',
    description:
      'Page with `limit` and `cursor` (meta.next_cursor) until next_cursor is null; the last page carries `meta.sync_token`. Apply each page in order: upsert `data`, remove the ids in `deleted`. Tokens live SYNC_TOKEN_TTL seconds (30 days by default).',
    scope: 'contacts:read',
    query: contactChangesQueryV4,
    responses: {
      200: { description: 'One page.', schema: contactChangesPageV4 },
      410: v4Error('The sync token has expired (`sync_token_expired`): start again with a full sync.'),
      422: v4Error('Malformed limit or cursor, or a sync token that is malformed or issued to another member.'),
    },
  });
  router.get('/v4/contacts/changes', read, rateLimit, changes.middleware, async (ctx) => {
    const query = changes.of(ctx).query;
    const memberId = callerOf(ctx).memberId;

    // The cursor carries the whole query; a sync_token sent along with it must be the one it
    // was issued for (a full listing's cursor has none), or the client mixed up two feeds.
    let since: ChangesCursor['since'];
    if (query.sync_token !== undefined) {
      const token = decodeSyncToken(query.sync_token);
      if (!token || token.memberId !== memberId) throw badSyncToken();
      usable(token);
      since = { snapshot: token.snapshot, issuedAt: token.issuedAt };
    }
    let cursor: ChangesCursor | undefined;
    if (query.cursor !== undefined) {
      cursor = decodeChangesCursor(query.cursor);
      if (!cursor || cursor.memberId !== memberId) throw badCursor();
      if (since && (since.snapshot !== cursor.since?.snapshot || since.issuedAt !== cursor.since.issuedAt))
        throw badCursor();
      since = cursor.since;
      if (since) usable(since);
    }
    // As on the listing: the page size travels with the cursor, and one sent beside it wins.
    const limit = query.limit ?? cursor?.limit ?? DEFAULT_LIST_LIMIT;
    const next = cursor?.next ?? { snapshot: await currentSnapshot(db), issuedAt: Math.floor(Date.now() / 1000) };
    const afterId = cursor?.afterId ?? 0;

    let records: Parameters<typeof toContactV4>[0][];
    let deleted: number[] = [];
    let nextAfterId: number | undefined;
    if (since) {
      const page = await listContactChanges(db, {
        ownerId: memberId,
        since: since.snapshot,
        until: next.snapshot,
        afterId,
        limit,
      });
      ({ records, nextAfterId } = page);
      deleted = page.deletedIds;
    } else {
      // Not bounded by `next` as the incremental feed is: a full listing reads the (owner_id, id)
      // index in id order, and a visibility condition there sent PostgreSQL through the member's
      // whole book for every page (a full sync of 1M contacts took 466 s instead of 12 in pnpm
      // bench). So a full listing still reaches the contacts created while it pages.
      const page = await listContacts(db, memberId, { limit, ...(afterId > 0 ? { afterId } : {}) });
      records = page.records;
      nextAfterId = page.hasMore ? records.at(-1)?.id : undefined;
    }

    const meta = {
      next_cursor:
        nextAfterId === undefined
          ? null
          : encodeChangesCursor({ memberId, afterId: nextAfterId, next, limit, ...(since ? { since } : {}) }),
      limit,
      ...(nextAfterId === undefined ? { sync_token: encodeSyncToken({ memberId, ...next }) } : {}),
    };
    // Each contact carries its etag, so that a mirror can write conditionally without a GET of
    // it first; it is serialised once, for its hash and the body.
    const data = records.map((record) => jsonWithEtag(JSON.stringify(toContactV4(record, { publicUrl }))));
    ctx.set('Cache-Control', 'private, no-store');
    ctx.type = 'application/json';
    ctx.body = `{"data":[${data.join(',')}],"deleted":${JSON.stringify(deleted)},"meta":${JSON.stringify(meta)}}`;
  });

  return router;
}
