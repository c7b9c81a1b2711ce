import { type ContactRecord, contactRecordPages, listContactRecordsByOffset } from '@contacts/db';
import {
  contactCreateV3,
  contactPageParamsV3,
  contactUpdateV3,
  contactV3,
  contactV3WithOwner,
  messageV3,
  toContactV3,
  v3InputToChanges,
} from '@contacts/schemas';
import { Router } from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { deleteOwnContact, updateContactFields, upsertContactByEmail } from '../../domain/contacts';
import { allowedMethodsOf, methodNotAllowed } from '../../http/allowed-methods';
import { bodyOf, parseBody } from '../../http/body';
import { readContactInput } from '../../http/contact-input';
import { koaGuard } from '../../http/guard';
import { sendJsonPages } from '../../http/streamed-json';
import { callerOf, pathId, type RouteDependencies } from '../context';
import { contactWriteBody, IMAGE_LIMIT, idParams, v3Invalid, v3Message } from '../contract-parts';

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

  const contacts = z.array(contactV3);
  const listed = koaGuard({
    operationId: 'listContactsV3',
    summary: "Every one of the caller's contacts, in id order (v4: GET /v4/contacts)",
    scope: 'contacts:read',
    responses: { 200: { description: 'The contacts, without an envelope.', schema: contacts } },
  });
  router.get('/v3/contacts', read, rateLimit, listed.middleware, async (ctx) => {
    ctx.set('Cache-Control', 'private, no-cache');
    // Every contact, however many: sent a page at a time, never all held at once.
    await sendJsonPages(ctx, contactRecordPages(db, { ownerId: callerOf(ctx).memberId }), toListedContact);
  });

  const page = koaGuard({
    operationId: 'pageContactsV3',
    summary: 'One page of the same id ordering (v4: GET /v4/contacts?limit=…&cursor=…)',
    scope: 'contacts:read',
    params: contactPageParamsV3,
    responses: {
      200: { description: 'Up to `limit` contacts after the first `offset`.', schema: contacts },
      422: v3Invalid('offset or limit is not an integer in range.'),
    },
  });
  router.get('/v3/contacts/:offset/:limit', read, rateLimit, page.middleware, async (ctx) => {
    const records = await listContactRecordsByOffset(db, callerOf(ctx).memberId, page.of(ctx).params);
    send(ctx, 200, records.map(toListedContact));
  });

  const tooLarge = v3Message(`The image is larger than ${IMAGE_LIMIT}.`);
  const upserted = koaGuard({
    operationId: 'upsertContactV3',
    summary: "Create a contact, or update the caller's contact with the same e-mail (v4: POST /v4/contacts)",
    scope: 'contacts:write',
    requestBody: contactWriteBody(contactCreateV3),
    responses: {
      201: { description: 'Created.', schema: contactV3WithOwner },
      200: { description: 'The contact with this e-mail (any case) was updated.', schema: contactV3WithOwner },
      413: tooLarge,
      422: v3Invalid('Validation failed, or no such referrer, category or group.'),
    },
  });
  router.post('/v3/contacts', write, rateLimit, withImage, upserted.middleware, async (ctx) => {
    const { changes: contact, image } = await readContactInput(ctx, contactCreateV3, (input) =>
      v3InputToChanges(input),
    );
    const { record, created } = await upsertContactByEmail(db, callerOf(ctx).memberId, contact, image);
    send(ctx, created ? 201 : 200, toContactV3(record, { withUserId: true }));
  });

  const updated = koaGuard({
    operationId: 'updateContactV3',
    summary: 'Change some fields (and/or the image) of a contact (v4: POST /v4/contacts/{id})',
    scope: 'contacts:write',
    params: idParams,
    paramsNotFound: true,
    requestBody: contactWriteBody(contactUpdateV3),
    responses: {
      200: { description: 'The updated contact (no `user_id`).', schema: contactV3 },
      404: v3Message("No such contact among the caller's."),
      413: tooLarge,
      422: v3Invalid("Validation failed, e.g. the e-mail is held by another of the caller's contacts."),
    },
  });
  router.patch('/v3/contacts/:id', write, rateLimit, withImage, updated.middleware, update);

  const notCreator = v3Message('Here: the caller sees the contact through a group but did not create it.');
  const removed = koaGuard({
    operationId: 'deleteContactV3',
    summary: 'Delete a contact the caller created (v4: DELETE /v4/contacts with contact_ids)',
    scope: 'contacts:write',
    params: idParams,
    paramsNotFound: true,
    responses: {
      200: { description: 'Deleted: `{"message": "success"}`.', schema: messageV3 },
      404: v3Message('The caller cannot see this contact.'),
      403: notCreator,
    },
  });
  router.delete('/v3/contacts/:id', write, rateLimit, removed.middleware, remove);

  // Laravel's method spoofing: HTML forms, and PHP clients uploading an image (PHP parses no
  // multipart PATCH body), send POST with _method=PATCH (or DELETE). Same handlers.
  const methodField = z.object({
    _method: z.enum(['PATCH', 'DELETE']).describe('The method meant (any case).'),
  });
  const spoofed = koaGuard({
    operationId: 'spoofedMethodContactV3',
    summary: 'PATCH or DELETE sent as POST with `_method` (Laravel method spoofing: HTML forms, PHP uploads)',
    description:
      'The same operation as PATCH (`_method=PATCH`) or DELETE (`_method=DELETE`) on this path; the method may also be named in an `X-HTTP-Method-Override` header. Any other method is refused with 405.',
    scope: 'contacts:write',
    params: idParams,
    paramsNotFound: true,
    headers: [
      {
        name: 'X-HTTP-Method-Override',
        in: 'header',
        required: false,
        schema: { type: 'string', enum: ['PATCH', 'DELETE'] },
        description: 'Used when the body has no `_method`.',
      },
    ],
    // Read by the handler below (the method may be in any case, or in the header).
    requestBody: Object.fromEntries(
      Object.entries(contactWriteBody(contactUpdateV3)).map(([type, schema]) => [
        type,
        z.intersection(methodField, schema),
      ]),
    ),
    responses: {
      200: {
        description: 'As PATCH (the updated contact) or DELETE (`{"message": "success"}`).',
        schema: z.union([contactV3, messageV3]),
      },
      404: v3Message('The caller cannot see this contact.'),
      405: v3Message('`_method` is neither PATCH nor DELETE.'),
      413: tooLarge,
      422: v3Invalid('Validation failed (as PATCH).'),
      403: {
        ...notCreator,
        description: 'Here (DELETE): the caller sees the contact through a group but did not create it.',
      },
    },
  });
  router.post('/v3/contacts/:id', write, rateLimit, withImage, spoofed.middleware, async (ctx) => {
    const fields = bodyOf(ctx).fields as Record<string, unknown> | null;
    const method = (typeof fields?._method === 'string' ? fields._method : ctx.get('x-http-method-override'))
      .trim()
      .toUpperCase();
    if (method === 'PATCH') return update(ctx);
    if (method === 'DELETE') return remove(ctx);
    // Allow names the path's methods, as the router's own 405 does (POST: with `_method`).
    throw methodNotAllowed(
      allowedMethodsOf(ctx),
      'Send PATCH or DELETE, or POST with _method=PATCH or _method=DELETE.',
    );
  });

  return router;
}
