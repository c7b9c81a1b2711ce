import type { Context, Next } from 'koa';
import { koaBody } from 'koa-body';
import compose from 'koa-compose';
import { verifyCsrf } from '../http/csrf';

/**
 * A client that closed the connection before its body was read (while the request waited for
 * the database, say) is the client's doing: 400, never the 500 the body parser would make of it.
 */
async function refuseHungUpRequests(ctx: Context, next: Next) {
  const hasBody = Boolean(ctx.request.length) || Boolean(ctx.get('transfer-encoding'));
  if (hasBody && !ctx.req.readable) ctx.throw(400, 'The request was closed before its body was read.');
  await next();
}

/**
 * Parses one of the auth app's own HTML forms (urlencoded only) and checks its CSRF token.
 * Never used on oidc-provider's routes, which parse their own bodies.
 */
export const formBody = compose([
  refuseHungUpRequests,
  koaBody({ urlencoded: true, json: false, multipart: false, text: false, formLimit: '64kb' }),
  verifyCsrf,
]);
