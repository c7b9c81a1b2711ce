import { withRequestTransaction } from '@contacts/db';
import type { Middleware } from 'koa';

/**
 * Every POST /oauth/token runs in one database transaction (begun by its first adapter statement): the code or refresh token it
 * consumes and the tokens it issues are stored together (all or nothing), committed before the
 * answer leaves. A 4xx answer commits too, since what led to it (a grant revoked because a
 * refresh token was reused) must stand; a 5xx or an exception rolls everything back.
 */
export function tokenTransaction(): Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'POST' || ctx.path !== '/oauth/token') return next();
    await withRequestTransaction(next, () => ctx.status < 500);
  };
}
