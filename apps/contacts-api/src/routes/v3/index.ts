import type { Logger } from '@contacts/config';
import type { Middleware } from 'koa';
import compose from 'koa-compose';
import type { RouteDependencies } from '../context';
import { contactRoutesV3 } from './contacts';
import { deprecationHeaders } from './deprecation';
import { laravelErrorBodies } from './errors';

/**
 * The whole deprecated v3 API as one middleware owning every path under /v3: the deprecation
 * headers on every answer (errors, 401s, 404s and 405s included), Laravel-style error bodies,
 * then the v3 routes. Other paths pass through untouched.
 */
export function v3Api(dependencies: RouteDependencies & { logger: Logger }): Middleware {
  const router = contactRoutesV3(dependencies);
  const headers = deprecationHeaders(dependencies.publicUrl);
  const chain = compose([
    laravelErrorBodies(dependencies.logger),
    router.routes() as Middleware,
    router.allowedMethods() as Middleware,
  ]);
  return async (ctx, next) => {
    if (ctx.path !== '/v3' && !ctx.path.startsWith('/v3/')) return next();
    ctx.set(headers);
    await chain(ctx, async () => {});
  };
}
