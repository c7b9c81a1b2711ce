import type { Logger } from '@contacts/config';
import type { Context, Next } from 'koa';

const EXPLANATION =
  "This server's public address (PUBLIC_URL) is https, but this request arrived over plain http and " +
  'no proxy in front said it was https (X-Forwarded-Proto: https). Use the https address; if you ' +
  'did, the proxy that ends TLS must send X-Forwarded-Proto: https.';

/**
 * With an https PUBLIC_URL every cookie is Secure, and Koa refuses to send a Secure cookie over
 * a connection it believes is plain http: that was a 500 on the first page. Such a request
 * (someone typing http://, or a proxy ending TLS without saying so) gets a 400 that names the
 * cause instead, as an OAuth error for API clients; the first one is also logged for the
 * operator. Health checks and metrics come before this and answer over http as always.
 */
export function refusePlainHttp(secureCookies: boolean, logger: Logger) {
  let warned = false;
  return async function plainHttpRefusal(ctx: Context, next: Next) {
    if (!secureCookies || ctx.secure) return next();
    if (!warned) {
      warned = true;
      logger.warn(
        { path: ctx.path },
        'a request arrived over plain http while PUBLIC_URL is https (no X-Forwarded-Proto: https): refused with 400',
      );
    }
    ctx.status = 400;
    ctx.set('Cache-Control', 'no-store');
    if (ctx.accepts('html', 'json') === 'html') ctx.body = EXPLANATION;
    else ctx.body = { error: 'invalid_request', error_description: EXPLANATION };
  };
}
