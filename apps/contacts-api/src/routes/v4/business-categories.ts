import { listBusinessCategories } from '@contacts/db';
import { businessCategoryV4 } from '@contacts/schemas';
import { Router } from '@koa/router';
import { z } from 'zod';
import { koaGuard } from '../../http/guard';
import type { RouteDependencies } from '../context';

export function businessCategoryRoutes({ db, read, rateLimit }: RouteDependencies): Router {
  const router = new Router();
  const categories = koaGuard({
    operationId: 'listBusinessCategories',
    summary: 'Every business category',
    scope: 'contacts:read',
    responses: { 200: { description: 'The categories.', schema: z.object({ data: z.array(businessCategoryV4) }) } },
  });
  router.get('/v4/business-categories', read, rateLimit, categories.middleware, async (ctx) => {
    ctx.set('Cache-Control', 'private, no-cache');
    ctx.body = { data: await listBusinessCategories(db) };
  });
  return router;
}
