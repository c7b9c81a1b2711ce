import type { Database } from '../connection';
import { queryPrepared } from '../prepared';
import type { CounterIncrement, CounterStore } from './windowed-limiter';

/**
 * Window counts in the table `rate_limits` (key, points, expire = the window's end in epoch ms;
 * the layout rate-limiter-flexible uses, so the sign-in guard's rows live beside these). One
 * statement adds a whole batch. A row of an earlier window starts over; a row of a later window
 * (another replica's clock is ahead) keeps counting in that window. The janitor deletes rows
 * whose window has passed.
 */
const ADD_BATCH = `
  insert into rate_limits (key, points, expire)
  select key, hits, window_ends_at
  from unnest($1::text[], $2::integer[], $3::bigint[]) as batch(key, hits, window_ends_at)
  on conflict (key) do update set
    points = case when rate_limits.expire >= excluded.expire then rate_limits.points + excluded.points
                  else excluded.points end,
    expire = greatest(rate_limits.expire, excluded.expire)
  returning key, points`;

export function postgresCounterStore(db: Database, keyPrefix: string): CounterStore {
  return {
    async add(batch: ReadonlyArray<CounterIncrement>) {
      const rows = await queryPrepared<{ key: string; points: number }>(db, 'rate_limits_add_batch', ADD_BATCH, [
        batch.map((item) => `${keyPrefix}:${item.key}`),
        batch.map((item) => item.hits),
        batch.map((item) => item.windowEndsAt),
      ]);
      return new Map(rows.map((row) => [row.key.slice(keyPrefix.length + 1), row.points]));
    },
  };
}
