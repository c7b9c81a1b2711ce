import type { Database } from './connection';
import { postgresCounterStore } from './rate-limit/postgres-counter-store';
import { redisCounterStore } from './rate-limit/redis-counter-store';
import { type CounterStore, type RateLimitVerdict, WindowedLimiter } from './rate-limit/windowed-limiter';
import { connectRedis } from './redis-client';

export type { RateLimitVerdict } from './rate-limit/windowed-limiter';

export interface RateLimitSettings {
  points: number;
  duration: number;
  /** Count in Redis instead of PostgreSQL. */
  redisUrl?: string | undefined;
}

export interface SharedRateLimiter {
  /** Counts one request for `key`; decided in memory, never waiting for the store. */
  consume(key: string): RateLimitVerdict;
  /** The verdict `key` would get now, counting nothing (WindowedLimiter.check). */
  check(key: string): RateLimitVerdict;
  /** Shares the counts not yet sent (tests; a shutting-down process). */
  flush(): Promise<void>;
}

/**
 * A rate limiter shared by every replica: each process decides from memory and adds its counts
 * to PostgreSQL (table rate_limits), or Redis when a URL is given, in batches (see
 * WindowedLimiter for how far N replicas can go over a limit, and for how long).
 */
export function sharedRateLimiter(
  db: Database,
  settings: RateLimitSettings,
  keyPrefix: string,
  warn: (message: string) => void,
): SharedRateLimiter {
  const store = settings.redisUrl
    ? redisCounterStore(
        connectRedis(settings.redisUrl, (error) => warn(`rate limit store (Redis) unavailable: ${error.message}`)),
        keyPrefix,
      )
    : postgresCounterStore(db, keyPrefix);
  const limiter = new WindowedLimiter(store satisfies CounterStore, {
    points: settings.points,
    duration: settings.duration,
    warn,
  });
  return { consume: (key) => limiter.consume(key), check: (key) => limiter.check(key), flush: () => limiter.flush() };
}
