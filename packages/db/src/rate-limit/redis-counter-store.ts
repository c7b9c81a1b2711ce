import type { RedisClientType } from 'redis';
import type { CounterIncrement, CounterStore } from './windowed-limiter';

/**
 * Window counts in Redis: one key per limited key (`<prefix>:<key>`), expiring at its window's
 * end, so the next window starts from nothing. One MULTI adds a whole batch.
 */
export function redisCounterStore(client: Pick<RedisClientType, 'multi'>, keyPrefix: string): CounterStore {
  return {
    async add(batch: ReadonlyArray<CounterIncrement>) {
      const transaction = client.multi();
      for (const item of batch) {
        transaction.incrBy(`${keyPrefix}:${item.key}`, item.hits);
        transaction.pExpireAt(`${keyPrefix}:${item.key}`, item.windowEndsAt);
      }
      const replies = await transaction.exec();
      return new Map(batch.map((item, index) => [item.key, Number(replies[index * 2])]));
    },
  };
}
