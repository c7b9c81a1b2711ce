import { createClient } from 'redis';

/**
 * A Redis client for a store that has a fallback (the rate limiter counts in memory meanwhile):
 * it never queues commands while disconnected (so waiting to connect delays no request), gives a
 * connection attempt 5 s (a busy process can take longer than a second to see a local connect), reconnects
 * with backoff, and does not keep the process alive. Connects in the background.
 */
export function connectRedis(url: string, onError: (error: Error) => void): ReturnType<typeof createClient> {
  const client = createClient({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: 5_000, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 5_000) },
  });
  client.on('error', onError);
  client.connect().then(
    () => client.unref(),
    () => {},
  );
  return client;
}
