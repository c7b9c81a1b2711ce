import { type ContactRecord, listContactRecordsByOffset } from '@contacts/db';
import {
  contactCreateV3,
  contactPageParamsV3,
  contactUpdateV3,
  contactV3,
  toContactV3,
  v3InputToChanges,
} from '@contacts/schemas';
import { Router } from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { deleteOwnContact, updateContactFields, upsertContactByEmail } from '../../domain/contacts';
import { bodyOf, parseBody } from '../../http/body';
import { readContactInput } from '../../http/contact-input';
import { ApiError } from '../../http/errors';
import { koaGuard } from '../../http/guard';
import { callerOf, pathId, type RouteDependencies } from '../context';

/**
 * /v3/contacts (deprecated): the original service's calls and shapes over the same domain
 * module as v4. Everything here is HTTP and serialization; every rule lives in domain/.
 */
export function contactRoutesV3({ db, read, write, rateLimit }: RouteDependencies): Router {
  const router = new Router();
  const withImage = parseBody({ fileFields: ['image'] });
  const send = (ctx: Context, status: number, body: unknown) => {
    ctx.status = status;
    ctx.set('Cache-Control', 'private, no-cache');
    ctx.body = body;
  };

  const toListedContact = (record: ContactRecord) => toContactV3(record);

  const update = async (ctx: Context) => {
    const id = pathId(ctx);
    const { changes, image } = await readContactInput(ctx, contactUpdateV3, (input) => v3InputToChanges(input));
    const record = await updateContactFields(db, callerOf(ctx).memberId, id, changes, image ? { image } : {});
    send(ctx, 200, toContactV3(record));
  };
  const remove = async (ctx: Context) => {
    await deleteOwnContact(db, callerOf(ctx).memberId, pathId(ctx));
    send(ctx, 200, { message: 'success' });
  };

  const listed = koaGuard({ response: z.array(contactV3), status: 200 });
  router.get('/v3/contacts', read, rateLimit, listed.middleware, async (ctx) => {
    const records = await listContactRecordsByOffset(db, callerOf(ctx).memberId);
    send(ctx, 200, records.map(toListedContact));
  });

  const page = koaGuard({ params: contactPageParamsV3, response: z.array(contactV3), status: 200 });
  router.get('/v3/contacts/:offset/:limit', read, rateLimit, page.middleware, async (ctx) => {
    const records = await listContactRecordsByOffset(db, callerOf(ctx).memberId, page.of(ctx).params);
    send(ctx, 200, records.map(toListedContact));
  });

  router.post('/v3/contacts', write, rateLimit, withImage, async (ctx) => {
    const { changes: contact, image } = await readContactInput(ctx, contactCreateV3, (input) =>
      v3InputToChanges(input),
    );
    const { record, created } = await upsertContactByEmail(db, callerOf(ctx).memberId, contact, image);
    send(ctx, created ? 201 : 200, toContactV3(record, { withUserId: true }));
  });

  router.patch('/v3/contacts/:id', write, rateLimit, withImage, update);
  router.delete('/v3/contacts/:id', write, rateLimit, remove);

  // Laravel's method spoofing: HTML forms, and PHP clients uploading an image (PHP parses no
  // multipart PATCH body), send POST with _method=PATCH (or DELETE). Same handlers.
  router.post('/v3/contacts/:id', write, rateLimit, withImage, async (ctx) => {
    const fields = bodyOf(ctx).fields as Record<string, unknown> | null;
    const method = (typeof fields?._method === 'string' ? fields._method : ctx.get('x-http-method-override'))
      .trim()
      .toUpperCase();
    if (method === 'PATCH') return update(ctx);
    if (method === 'DELETE') return remove(ctx);
    ctx.set('Allow', 'PATCH, DELETE');
    throw new ApiError(
      405,
      'method_not_allowed',
      'Send PATCH or DELETE, or POST with _method=PATCH or _method=DELETE.',
    );
  });

  return router;
}
