import { type Database, flushTokenWrites, withRequestScope } from '@contacts/db';
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
 * refresh token consumed by a request that raced with this one, the answer becomes the error the
 * provider gives for a second use (`invalid_grant`), reported like one (its `grant.error` event).
 * A grant revoked because a refresh token was reused is written at once, not held back.
 */
export function providerRequestScope(db: Database): Middleware {
  return (ctx, next) =>
    withRequestScope(
      async () => {
        await next();
        if (ctx.status >= 300) return;
        const written = await flushTokenWrites(db);
        if (written.outcome === 'consumed-already') answerConsumedTwice(ctx as KoaContextWithOIDC, written.model);
      },
      { deferTokenWrites: () => (ctx as Partial<KoaContextWithOIDC>).oidc?.route === 'token' },
    );
}

function answerConsumedTwice(ctx: KoaContextWithOIDC, model: string): void {
  const error = consumedTwiceError(model);
  ctx.status = error.statusCode;
  ctx.body = { error: error.error, error_description: error.error_description };
  ctx.oidc.provider.emit('grant.error', ctx, error);
}
