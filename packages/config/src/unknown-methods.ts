import type { Context, Next } from 'koa';

/**
 * After a @koa/router `allowedMethods()` has answered: it gives 501 Not Implemented to any method
 * it does not implement (PROPFIND, MKCOL, TRACE…), whether or not a route has the path, with
 * the matched routes' methods in Allow (an empty header when none matched). Neither is a failure of
 * the server: where the path has routes, the method is the client's mistake, 405 with that Allow
 * (RFC 9110 §15.5.6); where it has none, there is nothing at the address, 404 as for any method,
 * without an Allow header naming no method. The answer's body is the service's to render.
 */
export function settleUnknownMethod(ctx: Context): void {
  if (ctx.status !== 501) return;
  if (ctx.response.get('Allow') !== '') {
    ctx.status = 405;
    return;
  }
  ctx.remove('Allow');
  ctx.status = 404;
}

/**
 * The same as a middleware, for a service whose routers' `allowedMethods()` sit inside it: placed
 * inside the service's error renderer, so that the settled 405 or 404 is rendered in its shape.
 */
export async function unknownMethods(ctx: Context, next: Next): Promise<void> {
  await next();
  settleUnknownMethod(ctx);
}
