import { listGroupsOfMember } from '@contacts/db';
import { contactV4, groupGuestImageUrl, groupV4, toContactV4 } from '@contacts/schemas';
import { Router } from '@koa/router';
import { z } from 'zod';
import { groupGuestPages } from '../../domain/contacts';
import { koaGuard } from '../../http/guard';
import { sendJsonPages } from '../../http/streamed-json';
import { callerOf, pathId, type RouteDependencies } from '../context';
import { idParams, v4Error } from '../contract-parts';

/** The caller's groups, and the contacts linked to one of them (its guests). */
export function groupRoutes({ db, publicUrl, read, rateLimit }: RouteDependencies): Router {
  const router = new Router();
  const groups = koaGuard({
    operationId: 'listGroups',
    summary: 'The groups the caller belongs to',
    scope: 'contacts:read',
    responses: { 200: { description: 'The groups.', schema: z.object({ data: z.array(groupV4) }) } },
  });
  router.get('/v4/groups', read, rateLimit, groups.middleware, async (ctx) => {
    ctx.set('Cache-Control', 'private, no-cache');
    ctx.body = { data: await listGroupsOfMember(db, callerOf(ctx).memberId) };
  });
  const guests = koaGuard({
    operationId: 'listGroupGuests',
    summary: 'Contacts linked to a group (its guests); for members of the group',
    scope: 'contacts:read',
    params: idParams,
    paramsNotFound: true,
    responses: {
      200: { description: 'The guests.', schema: z.object({ data: z.array(contactV4) }) },
      404: v4Error('No such group.'),
    },
  });
  router.get('/v4/groups/:id/guests', read, rateLimit, guests.middleware, async (ctx) => {
    const groupId = pathId(ctx);
    const pages = await groupGuestPages(db, callerOf(ctx).memberId, groupId);
    // Other members' contacts: never kept by a shared cache, revalidated by the member's own.
    ctx.set('Cache-Control', 'private, no-cache');
    // A guest usually belongs to another member: its image is read through the group.
    const imageUrl = (contactId: number) => groupGuestImageUrl(publicUrl, groupId, contactId);
    // However many guests: sent a page at a time, never all held at once.
    await sendJsonPages(ctx, pages, (record) => toContactV4(record, { publicUrl, imageUrl }), 'data');
  });
  return router;
}
