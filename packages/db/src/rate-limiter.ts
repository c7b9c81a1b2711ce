import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
  RLWrapperTimeouts,
} from 'rate-limiter-flexible';
import type { Database } from './connection';
import { connectRedis } from './redis-client';

export interface RateLimitSettings {
  points: number;
  duration: number;
  /** Count in Redis instead of PostgreSQL. */
  redisUrl?: string | undefined;
}

/** Whether a request may go on, and the RateLimit-* headers (IETF draft) describing the window. */
export interface RateLimitVerdict {
  allowed: boolean;
  headers: { 'RateLimit-Limit': string; 'RateLimit-Remaining': string; 'RateLimit-Reset': string };
}

/**
 * A rate limiter shared by every replica: counts in PostgreSQL (table rate_limits), or in Redis
 * when a URL is given. When the store does not answer within a second, each process counts in
 * memory meanwhile, so an outage of the store neither blocks nor stalls requests. Resolves
 * undefined when a request could not be counted at all (it is let through).
 */
export function sharedRateLimiter(
  db: Database,
  settings: RateLimitSettings,
  keyPrefix: string,
  warn: (message: string) => void,
): (key: string) => Promise<RateLimitVerdict | undefined> {
  const options = { keyPrefix, points: settings.points, duration: settings.duration };
  const limiter = new RLWrapperTimeouts({
    limiter: sharedStore(db, settings, options, warn),
    timeoutMs: 1_000,
    insuranceLimiter: new RateLimiterMemory(options),
  });
  const verdict = (allowed: boolean, result: RateLimiterRes): RateLimitVerdict => ({
    allowed,
    headers: {
      'RateLimit-Limit': String(settings.points),
      'RateLimit-Remaining': String(Math.max(0, result.remainingPoints)),
      'RateLimit-Reset': String(Math.max(1, Math.ceil(result.msBeforeNext / 1000))),
    },
  });
  return async (key) => {
    try {
      return verdict(true, await limiter.consume(key));
    } catch (error) {
      if (error instanceof RateLimiterRes) return verdict(false, error);
      warn(`rate limit not counted: ${(error as Error).message}`);
      return undefined;
    }
  };
}

function sharedStore(
  db: Database,
  settings: RateLimitSettings,
  options: { keyPrefix: string; points: number; duration: number },
  warn: (message: string) => void,
) {
  if (settings.redisUrl) {
    return new RateLimiterRedis({
      ...options,
      storeClient: connectRedis(settings.redisUrl, (error) =>
        warn(`rate limit store (Redis) unavailable: ${error.message}`),
      ),
      useRedisPackage: true,
      rejectIfRedisNotReady: true,
    });
  }
  return new RateLimiterPostgres({
    ...options,
    storeClient: db,
    storeType: 'knex',
    tableName: 'rate_limits',
    tableCreated: true,
    clearExpiredByTimeout: false,
  });
}
