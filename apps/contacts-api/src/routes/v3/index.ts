import { type Logger, unknownMethods } from '@contacts/config';
import type { Router } from '@koa/router';
import type { Middleware } from 'koa';
import compose from 'koa-compose';
import { deprecationHeaders } from './deprecation';
import { laravelErrorBodies } from './errors';

/**
 * The whole deprecated v3 API as one middleware owning every path under /v3: the deprecation
 * headers on every answer (errors, 401s, 404s and 405s included), Laravel-style error bodies,
 * then the v3 routes (`router`). Other paths pass through untouched.
 */
export function v3Api(router: Router, options: { publicUrl: string; logger: Logger }): Middleware {
  const headers = deprecationHeaders(options.publicUrl);
  const chain = compose([
    laravelErrorBodies(options.logger),
    // Its 501 for a method no route knows (MKCOL, PROPFIND…): 405 or 404, in v3's body.
    unknownMethods,
    router.routes() as Middleware,
    router.allowedMethods() as Middleware,
  ]);
  return async (ctx, next) => {
    if (ctx.path !== '/v3' && !ctx.path.startsWith('/v3/')) return next();
    ctx.set(headers);
    await chain(ctx, async () => {});
  };
}
