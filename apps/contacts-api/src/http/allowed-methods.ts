import { settleUnknownMethod } from '@contacts/config';
import type { Layer, Router } from '@koa/router';
import type { Context, Middleware } from 'koa';
import { ApiError } from './errors';

/**
 * v4's answers to a method a path does not answer: 405 in the v4 error shape, with the Allow
 * header RFC 9110 §15.5.6 requires. @koa/router sets Allow only when it answers itself (with
 * `throw: true` it throws the error it is given instead, and Allow is lost), so its answer is
 * taken and turned into an ApiError carrying the header.
 *
 * A fixed path wins over a parameter: path-to-regexp 8 (@koa/router 15) cannot restrict `:id`
 * to digits, so `/v4/contacts/:id` also matches `/v4/contacts/batch`. Where a fixed route
 * matches the path, the path names that resource, and only its methods are allowed.
 */

/** The methods the routes matching the request's path answer (a fixed path's alone when one matches). */
export function allowedMethodsOf(ctx: Context): string[] {
  const matched: Layer[] = (ctx as Context & { matched?: Layer[] }).matched ?? [];
  const routes = matched.filter((layer) => layer.methods.length > 0);
  const fixed = routes.filter((layer) => layer.paramNames.length === 0);
  return [...new Set((fixed.length > 0 ? fixed : routes).flatMap((layer) => layer.methods))];
}

export const methodNotAllowed = (allowed: readonly string[], message = 'Method not allowed.') =>
  new ApiError(405, 'method_not_allowed', message, { headers: { Allow: allowed.join(', ') } });

/** How the OpenAPI document names the header of every 405 (http/openapi-paths.ts). */
export const ALLOW_HEADERS = {
  Allow: { schema: { type: 'string' }, description: 'The methods this path answers (RFC 9110 §10.2.1).' },
};

/** After the router's routes: OPTIONS answered with Allow, other methods a path does not answer → 405. */
export function allowedMethods(router: Router): Middleware {
  const routerAnswer = router.allowedMethods() as Middleware;
  return async (ctx, next) => {
    await routerAnswer(ctx, next);
    // Its 501 for a method it does not know at all (PROPFIND): 405, or 404 where no route has the
    // path (rendered by the error renderer as any 404 without a body).
    settleUnknownMethod(ctx);
    const options = ctx.method === 'OPTIONS' && ctx.status === 200 && ctx.response.get('Allow') !== '';
    if (ctx.status !== 405 && !options) return;
    const allowed = allowedMethodsOf(ctx);
    if (options) {
      ctx.set('Allow', allowed.join(', '));
      return;
    }
    throw methodNotAllowed(allowed);
  };
}

/**
 * On a router whose `/:param` paths sit beside fixed ones: a request that reached a `:param`
 * route although a fixed route matches its path (GET /v4/contacts/batch, POST …/export) asked the
 * fixed resource for a method it does not answer: 405, before any token check, as for any path.
 */
export function fixedPathsFirst(router: Router, param: string): void {
  router.param(param, (_value, ctx, next) => {
    const matched: Layer[] = (ctx as Context & { matched?: Layer[] }).matched ?? [];
    if (matched.some((layer) => layer.methods.length > 0 && layer.paramNames.length === 0)) {
      throw methodNotAllowed(allowedMethodsOf(ctx));
    }
    return next();
  });
}
