import { withRequestScope } from '@contacts/db';
import type { Middleware } from 'koa';

/**
 * Every request that reaches oidc-provider runs in a request scope (packages/db request-scope),
 * in which a token's grant is read along with the token.
 *
 * POST /oauth/token also runs in one database transaction, begun by its first adapter
 * statement: the code or refresh token it consumes and the tokens it issues are stored together
 * (all or nothing) and committed before the answer leaves. A 4xx answer commits too, since what
 * led to it (a grant revoked because a refresh token was reused) must stand; a 5xx or an
 * exception rolls everything back.
 */
export function providerRequestScope(): Middleware {
  return async (ctx, next) => {
    const tokenRequest = ctx.method === 'POST' && ctx.path === '/oauth/token';
    await withRequestScope(next, tokenRequest ? () => ctx.status < 500 : undefined);
  };
}
