import { type Database, flushTokenWrites, revokeOidcModels, withRequestScope } from '@contacts/db';
import type { Middleware } from 'koa';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { consumedTwiceError } from '../provider/refresh-token-reuse';

/**
 * Every request that reaches oidc-provider runs in a request scope (packages/db request-scope),
 * in which a token's grant is read along with the token.
 *
 * On the token route (`ctx.oidc.route === 'token'`) the code or refresh token consumed and the
 * tokens issued are held back and, once the provider has built a successful answer, written by
 * one atomic statement (packages/db oidc-token-writes.ts) before the answer leaves: all or
 * nothing, and nothing at all when the answer is an error. When that statement finds the code or
 * refresh token consumed by a request that raced with this one, this request is a second use of
 * it, as if it had come a moment later: the whole grant is revoked (the tokens the other request
 * was given included), as the provider does for a second use it finds itself (RFC 9700 §4.14.2,
 * RFC 6749 §4.1.2), and the answer is the provider's error for one (`invalid_grant`), reported
 * like one (its `grant.error` event). A grant revoked because a refresh token was reused is
 * written at once, not held back.
 */
export function providerRequestScope(db: Database): Middleware {
  return (ctx, next) =>
    withRequestScope(
      async () => {
        await next();
        if (ctx.status >= 300) return;
        const written = await flushTokenWrites(db);
        if (written.outcome === 'consumed-already')
          await answerConsumedTwice(db, ctx as KoaContextWithOIDC, written.model);
      },
      { deferTokenWrites: () => (ctx as Partial<KoaContextWithOIDC>).oidc?.route === 'token' },
    );
}

async function answerConsumedTwice(db: Database, ctx: KoaContextWithOIDC, model: string): Promise<void> {
  const consumed = model === 'RefreshToken' ? ctx.oidc.entities.RefreshToken : ctx.oidc.entities.AuthorizationCode;
  const grantId = consumed?.grantId;
  const clientId = ctx.oidc.client?.clientId;
  if (grantId && clientId) {
    await revokeOidcModels(db, { clientId, grantId });
    ctx.oidc.provider.emit('grant.revoked', ctx, grantId);
  }
  const error = consumedTwiceError(model);
  ctx.status = error.statusCode;
  ctx.body = { error: error.error, error_description: error.error_description };
  ctx.oidc.provider.emit('grant.error', ctx, error);
}
