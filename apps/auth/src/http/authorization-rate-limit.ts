import { addressKey, type Logger, type RateLimit } from '@contacts/config';
import { type Database, sharedRateLimiter } from '@contacts/db';
import type { Context, Next } from 'koa';
import type Provider from 'oidc-provider';
import { errorPage } from '../views/error';

/**
 * Authorization requests per caller address (an IPv6 one by its /64) per window. A member's
 * sign-in takes one or two; an office behind one address gets a few hundred a minute.
 */
export const AUTHORIZATION_RATE_LIMIT: RateLimit = { points: 300, duration: 60 };

/**
 * [security] Every new authorization request stores an interaction (an `oidc_models` row kept
 * for its hour), and needs no sign-in: a registered client id and its redirect URI are public
 * (the API docs' own client is built in). Counted per address, so that one caller cannot add rows
 * faster than the limit lets it; the janitor removes them once expired. Only a new request is
 * counted (GET /oauth/authorize), not its resumption after sign-in or consent. Over the limit:
 * 429 with Retry-After and a page saying so (a browser is at the other end).
 */
export function authorizationRateLimit(
  provider: Provider,
  db: Database,
  logger: Logger,
  limit: RateLimit = AUTHORIZATION_RATE_LIMIT,
) {
  const limiter = sharedRateLimiter(db, limit, 'authorize_ip', (message) => logger.warn(message));
  const authorizationPath = provider.pathFor('authorization');
  return async function rateLimitAuthorizationRequests(ctx: Context, next: Next) {
    if (ctx.path !== authorizationPath || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    const verdict = limiter.consume(addressKey(ctx.ip));
    ctx.set(verdict.headers);
    if (verdict.allowed) return next();
    const reset = verdict.headers['RateLimit-Reset'];
    ctx.set({ 'Retry-After': reset, 'Cache-Control': 'no-store' });
    ctx.status = 429;
    ctx.type = 'html';
    ctx.body = errorPage(
      'Too many sign-in requests',
      `Too many authorization requests came from your network in a short time. Try again in ${reset} seconds.`,
    );
  };
}
