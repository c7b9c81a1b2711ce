import { findOwnedContactImage } from '@contacts/db';
import { Router } from '@koa/router';
import { ApiError } from '../../http/errors';
import { callerOf, pathId, type RouteDependencies } from '../context';

/** GET /v4/contacts/{id}/image: the stored bytes, as stored, with validators for caches. */
export function imageRoutes({ db, read, rateLimit }: RouteDependencies): Router {
  const router = new Router();
  router.get('/v4/contacts/:id/image', read, rateLimit, async (ctx) => {
    const image = await findOwnedContactImage(db, callerOf(ctx).memberId, pathId(ctx));
    if (!image) throw new ApiError(404, 'not_found', 'This contact has no image.');
    const etag = `"${image.sha256}"`;
    ctx.set({
      ETag: etag,
      // Private: the bytes belong to one member; no-cache: revalidate (cheap with If-None-Match).
      'Cache-Control': 'private, no-cache',
      'X-Content-Type-Options': 'nosniff',
      'Content-Disposition': 'inline',
    });
    // Not ctx.fresh: it treats a request carrying Cache-Control: no-cache as stale, and fetch()
    // adds exactly that header to every request it sends with If-None-Match.
    if (
      ctx
        .get('if-none-match')
        .split(',')
        .some((tag) => tag.trim() === etag)
    ) {
      ctx.status = 304;
      return;
    }
    ctx.type = image.content_type;
    ctx.body = image.bytes;
  });
  return router;
}
