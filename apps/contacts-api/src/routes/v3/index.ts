import { type Logger, unknownMethods } from '@contacts/config';
import type { Router } from '@koa/router';
import type { Middleware } from 'koa';
import compose from 'koa-compose';
import { deprecationHeaders } from './deprecation';
import { laravelErrorBodies } from './errors';

/** Whether `path` is v3's: /v3 and everything under it. */
const isV3Path = (path: string): boolean => path === '/v3' || path.startsWith('/v3/');

/**
 * The headers every answer on `path` carries for being v3's (the deprecation signals), or
 * undefined for any other path. v3Api sets them on all it answers; a CORS preflight is answered
 * before it (http/cors.ts apiCors), so apiCors is given this too.
 */
export function v3HeadersOf(publicUrl: string): (path: string) => Readonly<Record<string, string>> | undefined {
  const headers = deprecationHeaders(publicUrl);
  return (path) => (isV3Path(path) ? headers : undefined);
}

/**
 * The whole deprecated v3 API as one middleware owning every path under /v3: the deprecation
 * headers on every answer (errors, 401s, 404s and 405s included), Laravel-style error bodies,
 * then the v3 routes (`router`). Other paths pass through untouched.
 */
export function v3Api(router: Router, options: { publicUrl: string; logger: Logger }): Middleware {
  const headersOf = v3HeadersOf(options.publicUrl);
  const chain = compose([
    laravelErrorBodies(options.logger),
    // Its 501 for a method no route knows (MKCOL, PROPFIND…): 405 or 404, in v3's body.
    unknownMethods,
    router.routes() as Middleware,
    router.allowedMethods() as Middleware,
  ]);
  return async (ctx, next) => {
    const headers = headersOf(ctx.path);
    if (!headers) return next();
    ctx.set(headers);
    await chain(ctx, async () => {});
  };
}
