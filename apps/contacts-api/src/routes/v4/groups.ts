import { listGroupsOfMember } from '@contacts/db';
import { toContactV4 } from '@contacts/schemas';
import { Router } from '@koa/router';
import { listGroupGuests } from '../../domain/contacts';
import { callerOf, pathId, type RouteDependencies } from '../context';

/** The caller's groups, and the contacts linked to one of them (its guests). */
export function groupRoutes({ db, publicUrl, read, rateLimit }: RouteDependencies): Router {
  const router = new Router();
  router.get('/v4/groups', read, rateLimit, async (ctx) => {
    ctx.body = { data: await listGroupsOfMember(db, callerOf(ctx).memberId) };
  });
  router.get('/v4/groups/:id/guests', read, rateLimit, async (ctx) => {
    const guests = await listGroupGuests(db, callerOf(ctx).memberId, pathId(ctx));
    ctx.body = { data: guests.map((record) => toContactV4(record, { publicUrl })) };
  });
  return router;
}
