import type { ContactRecord } from '@contacts/db';
import {
  type ContactV4,
  contactCreateV4,
  contactListV4Meta,
  contactUpdateV4,
  contactUrl,
  contactV4,
  deleteContactsResultV4,
  deleteContactsV4,
  encodeCursor,
  listContactsQueryV4,
  listedQueryOf,
  MAX_DELETE_IDS,
  toContactV4,
  v4InputToChanges,
} from '@contacts/schemas';
import { Router } from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { createContact, deleteContacts, getContact, listContacts, updateContactFields } from '../../domain/contacts';
import { contactsOfAnswer, writeOncePerKey } from '../../domain/idempotent-writes';
import { fixedPathsFirst } from '../../http/allowed-methods';
import { parseBody } from '../../http/body';
import { readContactInput } from '../../http/contact-input';
import { ApiError, validationFailed } from '../../http/errors';
import { etagOf, etagOfJson, readPrecondition, writePrecondition } from '../../http/etag';
import { koaGuard } from '../../http/guard';
import {
  asCreated,
  IDEMPOTENT_REPLAYED_HEADER,
  keyRefusal,
  readIdempotencyKey,
  requestFingerprint,
} from '../../http/idempotency-key';
import { callerOf, pathId, type RouteDependencies } from '../context';
import {
  contactWriteBody,
  ETAG_HEADER,
  IDEMPOTENCY_ANSWERS,
  IDEMPOTENCY_KEY_PARAMETER,
  IMAGE_LIMIT,
  idParams,
  REPLAYED_HEADER,
  v4Error,
} from '../contract-parts';

/** /v4/contacts: list, create, read, partial update, bulk delete. */
export function contactRoutes({ db, publicUrl, read, write, rateLimit }: RouteDependencies): Router {
  const router = new Router();
  // /v4/contacts/batch, /changes, /export and /import are not contacts: 405 for other methods there.
  fixedPathsFirst(router, 'id');
  const serialize = (record: ContactRecord) => toContactV4(record, { publicUrl });
  const sendOne = (ctx: Context, status: number, contact: ContactV4) => {
    // Serialised once, for both the ETag and the body.
    const json = JSON.stringify(contact);
    sendJson(ctx, status, json, etagOfJson(json));
  };
  const sendJson = (ctx: Context, status: number, json: string, etag: string) => {
    ctx.status = status;
    ctx.set('ETag', etag);
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
    const listed = listedQueryOf(list.of(ctx).query);
    if (!listed.ok) throw validationFailed(listed.fields);
    const { query, afterId } = listed;
    const { records, hasMore } = await listContacts(db, callerOf(ctx).memberId, {
      limit: query.limit,
      ...(afterId !== undefined ? { afterId } : {}),
      ...(query.q ? { search: query.q } : {}),
      ...(query.group_id !== undefined ? { groupId: query.group_id } : {}),
      ...(query.updated_since ? { updatedSince: query.updated_since } : {}),
    });
    const last = records.at(-1);
    ctx.set('Cache-Control', 'private, no-cache');
    ctx.body = {
      data: records.map(serialize),
      meta: { next_cursor: hasMore && last ? encodeCursor({ after_id: last.id, query }) : null, limit: query.limit },
    };
  });

  const created = koaGuard({
    operationId: 'createContact',
    summary: 'Create a contact (multipart/form-data when an image is sent)',
    scope: 'contacts:write',
    headers: [IDEMPOTENCY_KEY_PARAMETER],
    requestBody: contactWriteBody(contactCreateV4),
    responses: {
      201: {
        description:
          'Created; or, for a repeated Idempotency-Key, created by its first request (the contact as it is now).',
        headers: {
          ...ETAG_HEADER,
          Location: { schema: { type: 'string', format: 'uri' }, description: 'The URL of the new contact.' },
          ...REPLAYED_HEADER,
        },
        schema: one,
      },
      400: IDEMPOTENCY_ANSWERS[400],
      404: {
        ...v4Error('A repeated Idempotency-Key whose contact has since been deleted (Idempotent-Replayed: true).'),
        headers: REPLAYED_HEADER,
      },
      409: IDEMPOTENCY_ANSWERS[409],
      ...bodyErrors,
      422: v4Error(`${bodyErrors[422].description} ${IDEMPOTENCY_ANSWERS[422]}`),
    },
  });
  const sendCreated = (ctx: Context, record: ContactRecord, status = 201) => {
    ctx.set('Location', contactUrl(publicUrl, record.id));
    sendOne(ctx, status, serialize(record));
  };
  router.post(
    '/v4/contacts',
    write,
    rateLimit,
    parseBody({ fileFields: ['image'] }),
    created.middleware,
    async (ctx) => {
      const key = readIdempotencyKey(ctx);
      const { changes: newContact, image } = await readContactInput(ctx, contactCreateV4, (input) =>
        v4InputToChanges(input),
      );
      const memberId = callerOf(ctx).memberId;
      // Without a key (the usual create): one statement, or the domain's one transaction; nothing more.
      if (key === undefined) return sendCreated(ctx, await createContact(db, memberId, newContact, image));
      const outcome = await writeOncePerKey(
        db,
        {
          memberId,
          key,
          fingerprint: requestFingerprint(ctx, { contact: asCreated(newContact), image: image?.bytes }),
        },
        (trx) => createContact(trx, memberId, newContact, image),
        (record) => ({ status: 201, resultIds: [record.id] }),
      );
      switch (outcome.kind) {
        case 'written':
          return sendCreated(ctx, outcome.value);
        case 'replay': {
          // The contact as it is now (its current ETag), or 404 when it has been deleted since.
          const [record] = await contactsOfAnswer(db, memberId, outcome.answer);
          const replayed = { [IDEMPOTENT_REPLAYED_HEADER]: 'true' };
          const gone = 'The contact created with this Idempotency-Key has since been deleted.';
          if (!record) throw new ApiError(404, 'not_found', gone, { headers: replayed });
          ctx.set(replayed);
          return sendCreated(ctx, record, outcome.answer.status);
        }
        default:
          throw keyRefusal(outcome.kind);
      }
    },
  );

  const remove = koaGuard({
    operationId: 'deleteContacts',
    summary: "Delete some of the caller's own contacts (by ids and/or group)",
    scope: 'contacts:write',
    body: deleteContactsV4,
    headers: [
      {
        name: 'If-None-Match',
        in: 'header',
        required: false,
        schema: { type: 'string' },
        description: '`*` refuses the request (412): the address book always exists. The collection has no ETag.',
      },
      {
        name: 'If-Match',
        in: 'header',
        required: false,
        schema: { type: 'string' },
        description:
          'The collection has no ETag, so any entity tag fails (412, RFC 9110 §13.1.1); `*` passes. To delete a contact only if it is unchanged, send a batch `delete` with `if_match`.',
      },
    ],
    responses: {
      200: { description: 'What was deleted.', schema: deleteContactsResultV4 },
      412: v4Error('If-None-Match is `*`, or If-Match names an entity tag; nothing was deleted.'),
      422: v4Error(`Empty or invalid body, or more than ${MAX_DELETE_IDS} ids.`),
    },
  });
  // JSON alone, as documented: ids are JSON numbers, which a form cannot send.
  const jsonBody = parseBody({ mediaTypes: ['application/json'] });
  router.delete('/v4/contacts', write, rateLimit, jsonBody, remove.middleware, async (ctx) => {
    const { contact_ids, group_id } = remove.of(ctx).body;
    // RFC 9110 §13.1.2: * matches any current representation, and the collection always has one.
    if (ctx.get('if-none-match').trim() === '*')
      throw new ApiError(
        412,
        'precondition_failed',
        'If-None-Match: * — the address book exists; nothing was deleted.',
      );
    const ifMatch = ctx.get('if-match').trim();
    if (ifMatch !== '' && ifMatch !== '*')
      throw new ApiError(
        412,
        'precondition_failed',
        'If-Match: the address book has no ETag, so no entity tag matches; nothing was deleted. To delete a contact ' +
          'only if it is unchanged, send a batch delete with if_match.',
      );
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
    headers: [
      {
        name: 'If-None-Match',
        in: 'header',
        required: false,
        schema: { type: 'string' },
        description:
          "The contact's ETag from an earlier answer (compared weakly), a list of them, or `*`: 304 while it is current.",
      },
      {
        name: 'If-Match',
        in: 'header',
        required: false,
        schema: { type: 'string' },
        description: "412 unless it names the contact's current ETag (compared strongly) or is `*`.",
      },
    ],
    responses: {
      200: { description: 'The contact.', headers: ETAG_HEADER, schema: one },
      304: {
        description: "Not modified: If-None-Match names the contact's current ETag, or is `*`.",
        headers: ETAG_HEADER,
      },
      404: notFound,
      412: v4Error('If-Match names no current ETag of the contact.'),
    },
  });
  router.get('/v4/contacts/:id', read, rateLimit, found.middleware, async (ctx) => {
    const json = JSON.stringify(serialize(await getContact(db, callerOf(ctx).memberId, pathId(ctx))));
    const etag = etagOfJson(json);
    // RFC 9110 §13.2.2, evaluated only when a condition is sent (the usual read has none).
    const { 'if-match': ifMatch, 'if-none-match': ifNoneMatch } = ctx.request.headers;
    if (ifMatch !== undefined || ifNoneMatch !== undefined) {
      const answer = readPrecondition(ifMatch, ifNoneMatch, etag);
      if (answer === 412)
        throw new ApiError(412, 'precondition_failed', 'If-Match names no current ETag of the contact.');
      if (answer === 304) {
        ctx.status = 304;
        ctx.set('ETag', etag);
        ctx.set('Cache-Control', 'private, no-cache');
        return;
      }
    }
    sendJson(ctx, 200, json, etag);
  });

  const updated = koaGuard({
    operationId: 'updateContact',
    summary: 'Change some fields (and/or the image) of a contact',
    scope: 'contacts:write',
    params: idParams,
    paramsNotFound: true,
    headers: [
      { name: 'If-Match', in: 'header', required: false, schema: { type: 'string' } },
      {
        name: 'If-None-Match',
        in: 'header',
        required: false,
        schema: { type: 'string' },
        description: "412 when it names the contact's current ETag (compared weakly) or is `*` (the contact exists).",
      },
    ],
    requestBody: contactWriteBody(contactUpdateV4),
    responses: {
      200: {
        description: 'The updated contact (as it was, same ETag and updated_at, when nothing sent changes it).',
        headers: ETAG_HEADER,
        schema: one,
      },
      404: notFound,
      412: v4Error('If-Match does not match the current ETag, or If-None-Match does (or is `*`). Nothing was written.'),
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
      const record = await updateContactFields(db, callerOf(ctx).memberId, id, changes, {
        ...(image ? { image } : {}),
        ...writePrecondition(
          { ifMatch: ctx.get('if-match'), ifNoneMatch: ctx.get('if-none-match') },
          (current: ContactRecord) => etagOf(serialize(current)),
        ),
      });
      sendOne(ctx, 200, serialize(record));
    },
  );

  return router;
}
