import { createClient } from 'redis';

/** Where the tests look for a Redis server (the machine's own; tests that need it skip without it). */
export const TEST_REDIS_URL = 'redis://127.0.0.1:6379';

export type TestRedis = ReturnType<typeof createClient>;

/** A connected client of the test Redis server, or undefined when none answers within half a second. */
export async function connectTestRedis(): Promise<TestRedis | undefined> {
  const redis = createClient({ url: TEST_REDIS_URL, socket: { connectTimeout: 500, reconnectStrategy: false } });
  redis.on('error', () => {});
  return redis.connect().then(
    () => redis,
    () => undefined,
  );
}
