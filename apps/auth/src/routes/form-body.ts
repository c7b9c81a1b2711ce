import { requestBodyAbandoned } from '@contacts/config';
import type { Context, Next } from 'koa';
import { koaBody } from 'koa-body';
import compose from 'koa-compose';
import { verifyCsrf } from '../http/csrf';

async function refuseHungUpRequests(ctx: Context, next: Next) {
  if (requestBodyAbandoned(ctx)) ctx.throw(400, 'The request was closed before its body was read.');
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
