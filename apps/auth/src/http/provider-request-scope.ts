import { withRequestScope } from '@contacts/db';
import type { Middleware } from 'koa';
import type { KoaContextWithOIDC } from 'oidc-provider';

/**
 * Every request that reaches oidc-provider runs in a request scope (packages/db request-scope),
 * in which a token's grant is read along with the token.
 *
 * The token route (`ctx.oidc.route === 'token'`) also runs in one database transaction, begun by
 * its first adapter statement (by then the provider has matched the route): the code or refresh
 * token it consumes and the tokens it issues are stored together (all or nothing) and committed
 * before the answer leaves. A 4xx answer commits too, since what led to it (a grant revoked
 * because a refresh token was reused) must stand; a 5xx or an exception rolls everything back.
 */
export function providerRequestScope(): Middleware {
  return async (ctx, next) => {
    await withRequestScope(next, {
      when: () => (ctx as Partial<KoaContextWithOIDC>).oidc?.route === 'token',
      keep: () => ctx.status < 500,
    });
  };
}
