import { type ContactImage, findOwnedContactImage } from '@contacts/db';
import { Router } from '@koa/router';
import type { Context } from 'koa';
import { findGroupGuestImageFor } from '../../domain/contacts';
import { ApiError } from '../../http/errors';
import { koaGuard } from '../../http/guard';
import { callerOf, pathId, type RouteDependencies } from '../context';
import { groupGuestParams, IMAGE_ETAG_HEADER, idParams, v4Error } from '../contract-parts';

const IF_NONE_MATCH = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  schema: { type: 'string' },
  description: "The image's ETag from an earlier answer: 304 while the image is unchanged.",
};

const imageResponses = (notFound: string) => ({
  200: {
    description: 'The stored bytes.',
    headers: { ...IMAGE_ETAG_HEADER, 'Cache-Control': { schema: { type: 'string' } } },
    content: {
      'image/jpeg': { schema: { type: 'string', contentMediaType: 'image/jpeg' } },
      'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } },
    },
  },
  304: { description: "Not modified: If-None-Match names the image's current ETag.", headers: IMAGE_ETAG_HEADER },
  404: v4Error(notFound),
});

/**
 * The images a caller may read, each as stored with validators for caches: their own contacts'
 * (GET /v4/contacts/{id}/image) and, for members of a group, its guests' (the contacts other
 * members linked to it: GET /v4/groups/{id}/guests/{contact_id}/image, where the guests
 * listing's image_url points).
 */
export function imageRoutes({ db, read, rateLimit }: RouteDependencies): Router {
  const router = new Router();
  const image = koaGuard({
    operationId: 'getContactImage',
    summary: "The contact's image",
    scope: 'contacts:read',
    params: idParams,
    paramsNotFound: true,
    headers: [IF_NONE_MATCH],
    responses: imageResponses('No such contact, or it has no image.'),
  });
  router.get('/v4/contacts/:id/image', read, rateLimit, image.middleware, async (ctx) => {
    answerWithImage(ctx, await findOwnedContactImage(db, callerOf(ctx).memberId, pathId(ctx)));
  });

  const guestImage = koaGuard({
    operationId: 'getGroupGuestImage',
    summary: "A group guest's image; for members of the group",
    scope: 'contacts:read',
    params: groupGuestParams,
    paramsNotFound: true,
    headers: [IF_NONE_MATCH],
    responses: {
      ...imageResponses('No such group, the contact is not one of its guests, or it has no image.'),
      403: v4Error('The caller is not a member of the group.'),
    },
  });
  router.get('/v4/groups/:id/guests/:contact_id/image', read, rateLimit, guestImage.middleware, async (ctx) => {
    const { memberId } = callerOf(ctx);
    answerWithImage(ctx, await findGroupGuestImageFor(db, memberId, pathId(ctx), pathId(ctx, 'contact_id')));
  });
  return router;
}

function answerWithImage(ctx: Context, stored: ContactImage | undefined): void {
  if (!stored) throw new ApiError(404, 'not_found', 'This contact has no image.');
  const etag = `"${stored.sha256}"`;
  ctx.set({
    ETag: etag,
    // Private: the bytes belong to one member (and their groups); no-cache: revalidate (cheap with If-None-Match).
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
}
