import { findOwnedContactImage } from '@contacts/db';
import { Router } from '@koa/router';
import { ApiError } from '../../http/errors';
import { koaGuard } from '../../http/guard';
import { callerOf, pathId, type RouteDependencies } from '../context';
import { IMAGE_ETAG_HEADER, idParams, v4Error } from '../contract-parts';

/** GET /v4/contacts/{id}/image: the stored bytes, as stored, with validators for caches. */
export function imageRoutes({ db, read, rateLimit }: RouteDependencies): Router {
  const router = new Router();
  const image = koaGuard({
    operationId: 'getContactImage',
    summary: "The contact's image",
    scope: 'contacts:read',
    params: idParams,
    paramsNotFound: true,
    headers: [
      {
        name: 'If-None-Match',
        in: 'header',
        required: false,
        schema: { type: 'string' },
        description: "The image's ETag from an earlier answer: 304 while the image is unchanged.",
      },
    ],
    responses: {
      200: {
        description: 'The stored bytes.',
        headers: { ...IMAGE_ETAG_HEADER, 'Cache-Control': { schema: { type: 'string' } } },
        content: {
          'image/jpeg': { schema: { type: 'string', contentMediaType: 'image/jpeg' } },
          'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } },
        },
      },
      304: { description: "Not modified: If-None-Match names the image's current ETag.", headers: IMAGE_ETAG_HEADER },
      404: v4Error('No such contact, or it has no image.'),
    },
  });
  router.get('/v4/contacts/:id/image', read, rateLimit, image.middleware, async (ctx) => {
    const stored = await findOwnedContactImage(db, callerOf(ctx).memberId, pathId(ctx));
    if (!stored) throw new ApiError(404, 'not_found', 'This contact has no image.');
    const etag = `"${stored.sha256}"`;
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
    ctx.type = stored.content_type;
    ctx.body = stored.bytes;
  });
  return router;
}
