import type { Logger, RateLimit } from '@contacts/config';
import { type Database, sharedRateLimiter } from '@contacts/db';
import type { Middleware } from 'koa';
import { bearerOf } from './bearer';
import { ApiError } from './errors';

/**
 * The API's rate limit per bearer token (by its SHA-256; the token itself is never stored),
 * counted in PostgreSQL so that every replica shares it. When PostgreSQL does not answer within
 * a second, each process counts on its own in memory until it does (an outage of the store
 * neither blocks nor stalls the API). Every answer carries RateLimit-Limit, RateLimit-Remaining
 * and RateLimit-Reset (seconds); a request over the limit gets 429 with Retry-After.
 * Routes place it after the access check, so that only authenticated requests are counted.
 */
export function perTokenRateLimit(db: Database, limit: RateLimit, logger: Logger): Middleware {
  const consume = sharedRateLimiter(db, limit, 'api_token', (message) => logger.warn(message));

  return async (ctx, next) => {
    const bearer = bearerOf(ctx);
    if (!bearer) return next();
    const verdict = await consume(bearer.hash);
    if (verdict && !verdict.allowed) {
      const reset = verdict.headers['RateLimit-Reset'];
      throw new ApiError(429, 'rate_limited', `Too many requests with this token; try again in ${reset} s.`, {
        headers: { ...verdict.headers, 'Retry-After': reset },
      });
    }
    if (verdict) ctx.set(verdict.headers);
    await next();
  };
}
