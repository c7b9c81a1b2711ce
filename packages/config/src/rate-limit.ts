import { integerFrom, LONGEST_LIFETIME_SECONDS, serviceUrlFrom } from './env';

/** At most `points` requests per `duration` seconds, counted in Redis when `redisUrl` is set. */
export interface RateLimit {
  points: number;
  duration: number;
  redisUrl?: string | undefined;
}

/**
 * Reads NAME (requests; 0 switches the limit off) and NAME_WINDOW (seconds), and REDIS_URL.
 * REDIS_URL is checked even while the limit is off, so that a typo shows when it is made.
 */
export function rateLimitFrom(env: NodeJS.ProcessEnv, name: string, defaultPoints: number): RateLimit | undefined {
  const points = integerFrom(env, name, defaultPoints, 0);
  const duration = integerFrom(env, `${name}_WINDOW`, 60, 1, LONGEST_LIFETIME_SECONDS);
  const redisUrl = serviceUrlFrom(env, 'REDIS_URL', ['redis:', 'rediss:'], 'redis://host:6379');
  return points > 0 ? { points, duration, redisUrl } : undefined;
}
