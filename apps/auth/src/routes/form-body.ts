import { koaBody } from 'koa-body';
import compose from 'koa-compose';
import { verifyCsrf } from '../http/csrf';

/**
 * Parses one of the auth app's own HTML forms (urlencoded only) and checks its CSRF token.
 * Never used on oidc-provider's routes, which parse their own bodies.
 */
export const formBody = compose([
  koaBody({ urlencoded: true, json: false, multipart: false, text: false, formLimit: '64kb' }),
  verifyCsrf,
]);
