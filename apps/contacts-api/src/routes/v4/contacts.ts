import type { ContactRecord } from '@contacts/db';
import {
  type ContactV4,
  contactCreateV4,
  contactUpdateV4,
  DEFAULT_LIST_LIMIT,
  deleteContactsV4,
  encodeCursor,
  listContactsQueryV4,
  toContactV4,
  v4InputToChanges,
  validate,
} from '@contacts/schemas';
import { Router } from '@koa/router';
import type { Context } from 'koa';
import { createContact, deleteContacts, getContact, listContacts, updateContactFields } from '../../domain/contacts';
import { bodyOf, parseBody } from '../../http/body';
import { readContactInput } from '../../http/contact-input';
import { validationFailed } from '../../http/errors';
import { etagOf, etagOfJson, ifMatchSatisfied } from '../../http/etag';
import { callerOf, pathId, type RouteDependencies } from '../context';

/** /v4/contacts: list, create, read, partial update, bulk delete. */
export function contactRoutes({ db, publicUrl, read, write, rateLimit }: RouteDependencies): Router {
  const router = new Router();
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

  router.get('/v4/contacts', read, rateLimit, async (ctx) => {
    const query = validate(listContactsQueryV4, ctx.query);
    if (!query.ok) throw validationFailed(query.fields);
    const { limit = DEFAULT_LIST_LIMIT, cursor, q, group_id, updated_since } = query.value;
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

  router.post('/v4/contacts', write, rateLimit, parseBody({ fileFields: ['image'] }), async (ctx) => {
    const { changes: newContact, image } = await readContactInput(ctx, contactCreateV4, (input) =>
      v4InputToChanges(input),
    );
    const record = await createContact(db, callerOf(ctx).memberId, newContact, image);
    const contact = serialize(record);
    ctx.set('Location', `${publicUrl}/v4/contacts/${record.id}`);
    sendOne(ctx, 201, contact);
  });

  router.delete('/v4/contacts', write, rateLimit, parseBody(), async (ctx) => {
    const body = validate(deleteContactsV4, bodyOf(ctx).fields);
    if (!body.ok) throw validationFailed(body.fields);
    const deleted = await deleteContacts(db, callerOf(ctx).memberId, {
      ...(body.value.contact_ids ? { contactIds: body.value.contact_ids } : {}),
      ...(body.value.group_id !== undefined ? { groupId: body.value.group_id } : {}),
    });
    ctx.body = { data: { deleted_ids: deleted }, deleted_count: deleted.length };
  });

  router.get('/v4/contacts/:id', read, rateLimit, async (ctx) => {
    sendOne(ctx, 200, serialize(await getContact(db, callerOf(ctx).memberId, pathId(ctx))));
  });

  router.post('/v4/contacts/:id', write, rateLimit, parseBody({ fileFields: ['image'] }), async (ctx) => {
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
  });

  return router;
}
