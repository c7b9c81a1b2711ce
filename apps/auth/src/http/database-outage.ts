import type { Logger } from '@contacts/config';
import { isDatabaseUnavailable } from '@contacts/db';
import type { Context, Next } from 'koa';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { errorPage } from '../views/error';

/**
 * While PostgreSQL cannot be reached, the authorization server answers 503 with Retry-After
 * instead of 500: {"error":"temporarily_unavailable","error_description"} on the OAuth
 * endpoints (and to clients that do not ask for HTML), a short page otherwise. oidc-provider
 * turns every failure inside its routes into a 500 server_error itself, so its `server_error`
 * event marks the request; errors from the app's own routes arrive here as exceptions.
 */
export function databaseOutage(provider: Provider, logger: Logger) {
  const outages = new WeakSet<object>();
  const on = provider.on.bind(provider) as (event: string, listener: (...args: never[]) => void) => void;
  on('server_error', (ctx: object, error: unknown) => {
    if (isDatabaseUnavailable(error)) outages.add(ctx);
  });
  return async function answerDatabaseOutage(ctx: Context, next: Next) {
    try {
      await next();
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      logger.warn({ err: { message: (error as Error).message }, path: ctx.path }, 'database unavailable');
      outages.add(ctx);
    }
    if (!outages.has(ctx)) return;
    ctx.status = 503;
    ctx.set('Retry-After', '5');
    ctx.set('Cache-Control', 'no-store');
    if (answersClients((ctx as Partial<KoaContextWithOIDC>).oidc?.route)) {
      ctx.body = {
        error: 'temporarily_unavailable',
        error_description: 'the authorization server cannot reach its database; try again shortly',
      };
    } else if (ctx.accepts('html', 'json') === 'json') {
      ctx.body = { error: 'temporarily_unavailable', error_description: 'the service is temporarily unavailable' };
    } else {
      ctx.type = 'html';
      ctx.body = errorPage(
        'Temporarily unavailable',
        'This service cannot work right now. Try again in a few moments.',
      );
    }
  };
}

/**
 * oidc-provider's routes that answer an application rather than a browser, by route name: all
 * but the authorization endpoint and the discovery documents (which never need the database).
 */
function answersClients(route: string | undefined): boolean {
  return route !== undefined && route !== 'authorization' && route !== 'discovery';
}
