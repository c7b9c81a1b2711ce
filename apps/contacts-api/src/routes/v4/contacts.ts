import type { ContactRecord } from '@contacts/db';
import {
  type ContactV4,
  contactCreateV4,
  contactListV4Meta,
  contactUpdateV4,
  contactV4,
  DEFAULT_LIST_LIMIT,
  deleteContactsResultV4,
  deleteContactsV4,
  encodeCursor,
  listContactsQueryV4,
  MAX_DELETE_IDS,
  toContactV4,
  v4InputToChanges,
} from '@contacts/schemas';
import { Router } from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { createContact, deleteContacts, getContact, listContacts, updateContactFields } from '../../domain/contacts';
import { fixedPathsFirst } from '../../http/allowed-methods';
import { parseBody } from '../../http/body';
import { readContactInput } from '../../http/contact-input';
import { etagOf, etagOfJson, ifMatchSatisfied } from '../../http/etag';
import { koaGuard } from '../../http/guard';
import { callerOf, pathId, type RouteDependencies } from '../context';
import { contactWriteBody, ETAG_HEADER, IMAGE_LIMIT, idParams, v4Error } from '../contract-parts';

/** /v4/contacts: list, create, read, partial update, bulk delete. */
export function contactRoutes({ db, publicUrl, read, write, rateLimit }: RouteDependencies): Router {
  const router = new Router();
  // /v4/contacts/batch, /changes, /export and /import are not contacts: 405 for other methods there.
  fixedPathsFirst(router, 'id');
  const serialize = (record: ContactRecord) => toContactV4(record, { publicUrl });
  const sendOne = (ctx: Context, status: number, contact: ContactV4) => {
    // Serialised once, for both the ETag and the body.
    const json = JSON.stringify(contact);
    ctx.status = status;
    ctx.set('ETag', etagOfJson(json));
    ctx.set('Cache-Control', 'private, no-cache');
    ctx.type = 'application/json';
    ctx.body = `{"data":${json}}`;
  };

  const one = z.object({ data: contactV4 });
  const notFound = v4Error("No such contact among the caller's.");
  // 400, 415 and the body limits' 413 are the document's for every body (http/shared-answers.ts).
  const bodyErrors = {
    413: v4Error(`The image is larger than ${IMAGE_LIMIT}.`),
    422: v4Error('Validation failed; `fields` holds per-field messages.'),
  };

  const list = koaGuard({
    operationId: 'listContacts',
    summary: "The caller's own contacts, one page at a time (keyset cursor)",
    scope: 'contacts:read',
    query: listContactsQueryV4,
    responses: {
      200: { description: 'One page.', schema: z.object({ data: z.array(contactV4), meta: contactListV4Meta }) },
      422: v4Error('Invalid query parameter.'),
    },
  });
  router.get('/v4/contacts', read, rateLimit, list.middleware, async (ctx) => {
    const { limit = DEFAULT_LIST_LIMIT, cursor, q, group_id, updated_since } = list.of(ctx).query;
    const { records, hasMore } = await listContacts(db, callerOf(ctx).memberId, {
      limit,
      ...(cursor ? { afterId: cursor.after_id } : {}),
      ...(q ? { search: q } : {}),
      ...(group_id !== undefined ? { groupId: group_id } : {}),
      ...(updated_since ? { updatedSince: updated_since } : {}),
    });
    const last = records.at(-1);
    ctx.set('Cache-Control', 'private, no-cache');
    ctx.body = {
      data: records.map(serialize),
      meta: { next_cursor: hasMore && last ? encodeCursor({ after_id: last.id }) : null, limit },
    };
  });

  const created = koaGuard({
    operationId: 'createContact',
    summary: 'Create a contact (multipart/form-data when an image is sent)',
    scope: 'contacts:write',
    requestBody: contactWriteBody(contactCreateV4),
    responses: {
      201: {
        description: 'Created.',
        headers: {
          ...ETAG_HEADER,
          Location: { schema: { type: 'string', format: 'uri' }, description: 'The URL of the new contact.' },
        },
        schema: one,
      },
      ...bodyErrors,
    },
  });
  router.post(
    '/v4/contacts',
    write,
    rateLimit,
    parseBody({ fileFields: ['image'] }),
    created.middleware,
    async (ctx) => {
      const { changes: newContact, image } = await readContactInput(ctx, contactCreateV4, (input) =>
        v4InputToChanges(input),
      );
      const record = await createContact(db, callerOf(ctx).memberId, newContact, image);
      const contact = serialize(record);
      ctx.set('Location', `${publicUrl}/v4/contacts/${record.id}`);
      sendOne(ctx, 201, contact);
    },
  );

  const remove = koaGuard({
    operationId: 'deleteContacts',
    summary: "Delete some of the caller's own contacts (by ids and/or group)",
    scope: 'contacts:write',
    body: deleteContactsV4,
    responses: {
      200: { description: 'What was deleted.', schema: deleteContactsResultV4 },
      422: v4Error(`Empty or invalid body, or more than ${MAX_DELETE_IDS} ids.`),
    },
  });
  router.delete('/v4/contacts', write, rateLimit, parseBody(), remove.middleware, async (ctx) => {
    const { contact_ids, group_id } = remove.of(ctx).body;
    const deleted = await deleteContacts(db, callerOf(ctx).memberId, {
      ...(contact_ids ? { contactIds: contact_ids } : {}),
      ...(group_id !== undefined ? { groupId: group_id } : {}),
    });
    ctx.body = { data: { deleted_ids: deleted }, deleted_count: deleted.length };
  });

  const found = koaGuard({
    operationId: 'getContact',
    summary: "One of the caller's contacts",
    scope: 'contacts:read',
    params: idParams,
    paramsNotFound: true,
    responses: { 200: { description: 'The contact.', headers: ETAG_HEADER, schema: one }, 404: notFound },
  });
  router.get('/v4/contacts/:id', read, rateLimit, found.middleware, async (ctx) => {
    sendOne(ctx, 200, serialize(await getContact(db, callerOf(ctx).memberId, pathId(ctx))));
  });

  const updated = koaGuard({
    operationId: 'updateContact',
    summary: 'Change some fields (and/or the image) of a contact',
    scope: 'contacts:write',
    params: idParams,
    paramsNotFound: true,
    headers: [{ name: 'If-Match', in: 'header', required: false, schema: { type: 'string' } }],
    requestBody: contactWriteBody(contactUpdateV4),
    responses: {
      200: { description: 'The updated contact.', headers: ETAG_HEADER, schema: one },
      404: notFound,
      412: v4Error('If-Match does not match the current ETag.'),
      ...bodyErrors,
    },
  });
  router.post(
    '/v4/contacts/:id',
    write,
    rateLimit,
    parseBody({ fileFields: ['image'] }),
    updated.middleware,
    async (ctx) => {
      const id = pathId(ctx);
      const { changes, image } = await readContactInput(ctx, contactUpdateV4, (input) => v4InputToChanges(input));
      const ifMatch = ctx.get('if-match');
      const record = await updateContactFields(db, callerOf(ctx).memberId, id, changes, {
        ...(image ? { image } : {}),
        ...(ifMatch
          ? { precondition: (current: ContactRecord) => ifMatchSatisfied(ifMatch, etagOf(serialize(current))) }
          : {}),
      });
      sendOne(ctx, 200, serialize(record));
    },
  );

  return router;
}
