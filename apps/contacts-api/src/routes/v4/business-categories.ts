import { listBusinessCategories } from '@contacts/db';
import { Router } from '@koa/router';
import type { RouteDependencies } from '../context';

export function businessCategoryRoutes({ db, read, rateLimit }: RouteDependencies): Router {
  const router = new Router();
  router.get('/v4/business-categories', read, rateLimit, async (ctx) => {
    ctx.body = { data: await listBusinessCategories(db) };
  });
  return router;
}
