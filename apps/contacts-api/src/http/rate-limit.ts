import type { Logger, RateLimit } from '@contacts/config';
import { type Database, sharedRateLimiter } from '@contacts/db';
import type { Middleware } from 'koa';
import { bearerOf } from './bearer';
import { ApiError } from './errors';

/**
 * The API's rate limit per bearer token (by its SHA-256; the token itself is never stored),
 * decided in memory and shared by every replica through PostgreSQL (or Redis) in batches; see
 * sharedRateLimiter for the accuracy that costs. Every answer carries RateLimit-Limit, RateLimit-Remaining
 * and RateLimit-Reset (seconds); a request over the limit gets 429 with Retry-After.
 * Routes place it after the access check, so that only authenticated requests are counted.
 */
export function perTokenRateLimit(db: Database, limit: RateLimit, logger: Logger): Middleware {
  const limiter = sharedRateLimiter(db, limit, 'api_token', (message) => logger.warn(message));

  const middleware = asRateLimit(async (ctx, next) => {
    const bearer = bearerOf(ctx);
    if (!bearer) return next();
    const verdict = limiter.consume(bearer.hash);
    if (!verdict.allowed) {
      const reset = verdict.headers['RateLimit-Reset'];
      throw new ApiError(429, 'rate_limited', `Too many requests with this token; try again in ${reset} s.`, {
        headers: { ...verdict.headers, 'Retry-After': reset },
      });
    }
    ctx.set(verdict.headers);
    await next();
  });
  perTokenLimits.add(middleware);
  return middleware;
}

const perTokenLimits = new WeakSet<Middleware>();

/** Whether `middleware` is the per-token limit, whose RateLimit-* headers every answer after it carries. */
export function isPerTokenRateLimit(middleware: unknown): boolean {
  return typeof middleware === 'function' && perTokenLimits.has(middleware as Middleware);
}

const rateLimits = new WeakSet<Middleware>();

/**
 * Marks `middleware` as the API's rate limit: the OpenAPI document lists its 429 on every route it
 * stands in (openapi-paths.ts finds it in the route's middleware). Without a limit configured
 * (API_RATE_LIMIT=0) the routes hold a pass-through instead, and no 429 is documented.
 */
export function asRateLimit(middleware: Middleware): Middleware {
  rateLimits.add(middleware);
  return middleware;
}

export function isRateLimit(middleware: unknown): boolean {
  return typeof middleware === 'function' && rateLimits.has(middleware as Middleware);
}
