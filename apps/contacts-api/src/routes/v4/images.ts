import { Readable } from 'node:stream';
import {
  type ContactRecord,
  type Database,
  findOwnedContactImage,
  ImageChangedError,
  type ImageLookup,
  type ImageLookupOptions,
  imageBytes,
  type StoredImage,
} from '@contacts/db';
import { toContactV4 } from '@contacts/schemas';
import { Router } from '@koa/router';
import type { Context } from 'koa';
import { findGroupGuestImageFor, removeContactImage } from '../../domain/contacts';
import { ApiError } from '../../http/errors';
import { etagOf, readPrecondition, writePrecondition } from '../../http/etag';
import { koaGuard } from '../../http/guard';
import { callerOf, pathId, type RouteDependencies } from '../context';
import { groupGuestParams, IMAGE_ETAG_HEADER, idParams, v4Error } from '../contract-parts';

const IF_NONE_MATCH = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  schema: { type: 'string' },
  description:
    "The image's ETag from an earlier answer (compared weakly: W/ is ignored), or *: 304 while the image is unchanged.",
};

const IF_MATCH = {
  name: 'If-Match',
  in: 'header',
  required: false,
  schema: { type: 'string' },
  description: "412 unless it names the image's current ETag (compared strongly) or is `*`.",
};

/** [security] Opened on its own, an image runs nothing: whatever bytes ride after the picture. */
const IMAGE_POLICY = "default-src 'none'; sandbox";

const imageResponses = (notFound: string) => ({
  200: {
    description: 'The stored bytes.',
    headers: {
      ...IMAGE_ETAG_HEADER,
      'Cache-Control': { schema: { type: 'string' } },
      'Content-Security-Policy': { schema: { type: 'string', const: IMAGE_POLICY } },
    },
    content: {
      'image/jpeg': { schema: { type: 'string', contentMediaType: 'image/jpeg' } },
      'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } },
    },
  },
  304: {
    description: "Not modified: If-None-Match names the image's current ETag (weakly) or is *.",
    headers: IMAGE_ETAG_HEADER,
  },
  404: v4Error(notFound),
  412: v4Error('If-Match names no current ETag of the image.'),
});

/**
 * The images a caller may read, each as stored with validators for caches: their own contacts'
 * (GET /v4/contacts/{id}/image) and, for members of a group, its guests' (the contacts other
 * members linked to it: GET /v4/groups/{id}/guests/{contact_id}/image, where the guests
 * listing's image_url points). The owner may remove their contact's image
 * (DELETE /v4/contacts/{id}/image): the contact changes as with an upload.
 */
export function imageRoutes({ db, publicUrl, read, write, rateLimit }: RouteDependencies): Router {
  const router = new Router();
  const image = koaGuard({
    operationId: 'getContactImage',
    summary: "The contact's image",
    scope: 'contacts:read',
    params: idParams,
    paramsNotFound: true,
    headers: [IF_NONE_MATCH, IF_MATCH],
    responses: imageResponses('No such contact, or it has no image.'),
  });
  router.get('/v4/contacts/:id/image', read, rateLimit, image.middleware, async (ctx) => {
    const found = await findOwnedContactImage(db, callerOf(ctx).memberId, pathId(ctx), lookupFor(ctx));
    answerWithImage(ctx, db, found, 'No such contact.');
  });

  const removed = koaGuard({
    operationId: 'deleteContactImage',
    summary: "Remove the contact's image",
    description:
      "The contact changes as with an image upload: its updated_at is the time of the removal, its ETag changes, image_url becomes null and the change feed lists it among the changed contacts. Sent with If-Match, the contact's ETag is checked under the contact's row lock.",
    scope: 'contacts:write',
    params: idParams,
    paramsNotFound: true,
    headers: [
      {
        name: 'If-Match',
        in: 'header',
        required: false,
        schema: { type: 'string' },
        description:
          "The contact's ETag (not the image's; compared strongly), a list of them, or `*`: 412 unless it names the current one.",
      },
    ],
    responses: {
      204: { description: 'The image was removed.' },
      404: v4Error("No such contact among the caller's, or it has no image (the message says which)."),
      412: v4Error('If-Match names no current ETag of the contact. Nothing was removed.'),
    },
  });
  router.delete('/v4/contacts/:id/image', write, rateLimit, removed.middleware, async (ctx) => {
    // If-Match only: the route declares no If-None-Match (removing an image is no creation).
    await removeContactImage(
      db,
      callerOf(ctx).memberId,
      pathId(ctx),
      writePrecondition({ ifMatch: ctx.get('if-match'), ifNoneMatch: '' }, (current: ContactRecord) =>
        etagOf(toContactV4(current, { publicUrl })),
      ),
    );
    ctx.status = 204;
  });

  const guestImage = koaGuard({
    operationId: 'getGroupGuestImage',
    summary: "A group guest's image; for members of the group",
    scope: 'contacts:read',
    params: groupGuestParams,
    paramsNotFound: true,
    headers: [IF_NONE_MATCH, IF_MATCH],
    responses: {
      ...imageResponses('No such group, the contact is not one of its guests, or it has no image.'),
      403: v4Error('Here: the caller is not a member of the group.'),
    },
  });
  router.get('/v4/groups/:id/guests/:contact_id/image', read, rateLimit, guestImage.middleware, async (ctx) => {
    const { memberId } = callerOf(ctx);
    const found = await findGroupGuestImageFor(db, memberId, pathId(ctx), pathId(ctx, 'contact_id'), lookupFor(ctx));
    answerWithImage(ctx, db, found, 'No such guest of this group.');
  });
  return router;
}

/** The first bytes come with the lookup only when they are likely to be sent (ImageLookupOptions). */
function lookupFor(ctx: Context): ImageLookupOptions {
  return { firstChunk: ctx.method === 'GET' && !ctx.get('if-none-match') };
}

function answerWithImage(ctx: Context, db: Database, found: ImageLookup, noSuchContact: string): void {
  if (!found) throw new ApiError(404, 'not_found', noSuchContact);
  const stored = found.image;
  if (!stored) throw new ApiError(404, 'not_found', 'This contact has no image.');
  const etag = `"${stored.sha256}"`;
  ctx.set({
    ETag: etag,
    // Private: the bytes belong to one member (and their groups); no-cache: revalidate (cheap with If-None-Match).
    'Cache-Control': 'private, no-cache',
    'X-Content-Type-Options': 'nosniff',
    'Content-Disposition': 'inline',
    'Content-Security-Policy': IMAGE_POLICY,
  });
  // Not ctx.fresh: it treats a request carrying Cache-Control: no-cache as stale, and fetch()
  // adds exactly that header to every request it sends with If-None-Match. RFC 9110 §13.2.2, as
  // for a contact: If-Match (strong) first, then If-None-Match (weak: W/"…" names the same
  // image); * matches any stored image.
  const answer = readPrecondition(ctx.get('if-match'), ctx.get('if-none-match'), etag);
  if (answer === 412) throw new ApiError(412, 'precondition_failed', 'If-Match names no current ETag of the image.');
  if (answer === 304) {
    ctx.status = 304;
    return;
  }
  ctx.type = stored.content_type;
  ctx.length = stored.size;
  ctx.body =
    stored.firstChunk?.length === stored.size
      ? stored.firstChunk
      : Readable.from(sentImage(db, stored), { highWaterMark: 1 });
}

/**
 * The image's bytes as they are sent: one chunk ahead of the client at most (Readable.from's
 * default is 16), so that a download holds about one chunk of memory however slowly it is read.
 * An image replaced or removed meanwhile breaks the transfer off (the client sees fewer bytes
 * than Content-Length, and asks again) rather than mix two images.
 */
async function* sentImage(db: Database, image: StoredImage): AsyncGenerator<Buffer> {
  try {
    yield* imageBytes(db, image);
  } catch (error) {
    throw error instanceof ImageChangedError ? new TransferBrokenOff(error.message) : error;
  }
}

/** Logged as what it is (a transfer that lost its race with a write), not as a failure of the server. */
class TransferBrokenOff extends Error {
  readonly status = 409;
  readonly expose = true;
}
