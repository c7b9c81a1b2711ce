import { addressKey, type Logger, type RateLimit } from '@contacts/config';
import { type Database, type RateLimitVerdict, sharedRateLimiter } from '@contacts/db';
import type { Middleware } from 'koa';
import type { Authenticator } from '../auth/authenticator';
import { isInvalidTokenRefusal } from '../auth/middleware';
import { bearerOf } from './bearer';
import { ApiError } from './errors';

/**
 * [security] A limit on invalid tokens per caller address (API_INVALID_TOKEN_LIMIT per
 * API_INVALID_TOKEN_LIMIT_WINDOW seconds; addressKey: an IPv6 caller by its /64), shared by the
 * replicas like the per-token limit. Every unknown token costs an introspection at the
 * authorization server, and the per-token limit cannot stop a flood of made-up tokens (each is
 * new), so without this one caller could turn its requests into introspections without bound
 * (and guess at tokens at the API's speed). Each 401 invalid_token counts one; once an address
 * has used up its allowance, its requests with a token get 429 `rate_limited` with Retry-After
 * until the window ends, unless the token is one this process already holds as active (it costs
 * no introspection): clients that share the address (a NAT) and hold good tokens carry on.
 * Requests without a token are not counted (they cost nothing) and get their 401.
 */
export function invalidTokenLimit(
  db: Database,
  limit: RateLimit,
  authenticator: Authenticator,
  logger: Logger,
): Middleware {
  const limiter = sharedRateLimiter(db, limit, 'api_invalid_token', (message) => logger.warn(message));
  return async (ctx, next) => {
    const bearer = bearerOf(ctx);
    if (!bearer) return next();
    // A token held as active passes whatever its address did, so the hot path (a warm token)
    // never looks at the address at all.
    if (!authenticator.holdsActive(bearer)) {
      const standing = limiter.check(addressKey(ctx.ip));
      if (!standing.allowed) throw tooManyInvalidTokens(standing);
    }
    try {
      await next();
    } catch (error) {
      if (isInvalidTokenRefusal(error)) limiter.consume(addressKey(ctx.ip));
      throw error;
    }
  };
}

function tooManyInvalidTokens({ headers }: RateLimitVerdict): ApiError {
  const reset = headers['RateLimit-Reset'];
  return new ApiError(429, 'rate_limited', `Too many invalid tokens from this address; try again in ${reset} s.`, {
    headers: { ...headers, 'Retry-After': reset },
  });
}
