import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDatabase, type Database, DEFAULT_FLUSH_INTERVAL_MS, sharedRateLimiter } from '../src/index';
import {
  connectTestRedis,
  createTestDatabase,
  TEST_RATE_LIMIT_WINDOW_SECONDS,
  TEST_REDIS_URL,
  type TestDatabase,
} from '../src/testing/index';

let database: TestDatabase;
/** A second pool on the same database: what another replica of a service holds. */
let otherReplicaDb: Database;
beforeAll(async () => {
  database = await createTestDatabase();
  otherReplicaDb = createDatabase(database.url, { poolMax: 2 });
});
afterAll(async () => {
  await otherReplicaDb.destroy();
  await database.drop();
});

let sequence = 0;
// Unique across runs: Redis keeps its counts between test runs.
const run = randomUUID().slice(0, 8);
const aKey = () => `key-${run}-${++sequence}`;
const warnings: string[] = [];
/** The count the store holds for `key` (shared by every replica), undefined when it holds none. */
const storedPoints = async (key: string): Promise<number | undefined> =>
  (
    await database
      .db('rate_limits')
      .where({ key: `test:${key}` })
      .first()
  )?.points;
const limiterOn = (db: Database, points: number, duration = 60, redisUrl?: string) =>
  sharedRateLimiter(db, { points, duration, redisUrl }, 'test', (message) => warnings.push(message));

describe('shared rate limiter', () => {
  it('decides each request in memory, with the RateLimit-* headers of the window, and stores the count', async () => {
    const limiter = limiterOn(database.db, 3);
    const key = aKey();
    const verdicts = [1, 2, 3, 4].map(() => limiter.consume(key));
    expect(verdicts.map((verdict) => verdict.allowed)).toEqual([true, true, true, false]);
    expect(verdicts.map((verdict) => verdict.headers['RateLimit-Remaining'])).toEqual(['2', '1', '0', '0']);
    expect(verdicts[0]?.headers['RateLimit-Limit']).toBe('3');
    const reset = Number(verdicts[0]?.headers['RateLimit-Reset']);
    expect(reset).toBeGreaterThanOrEqual(1);
    expect(reset).toBeLessThanOrEqual(60);

    await limiter.flush();
    const row = await database
      .db('rate_limits')
      .where({ key: `test:${key}` })
      .first();
    expect(row).toMatchObject({ points: 3 });
    // The row expires when the window ends, so the janitor can delete it then.
    expect(Number(row.expire)).toBeGreaterThan(Date.now());
    expect(Number(row.expire)).toBeLessThanOrEqual(Date.now() + 60_000);
  });

  it('checks a key without counting: check() answers what consume() would, and stores nothing', async () => {
    const limiter = limiterOn(database.db, 2);
    const key = aKey();
    expect(limiter.check(key)).toMatchObject({ allowed: true, headers: { 'RateLimit-Remaining': '2' } });
    expect(limiter.check(key).allowed).toBe(true);
    limiter.consume(key);
    expect(limiter.check(key)).toMatchObject({ allowed: true, headers: { 'RateLimit-Remaining': '1' } });
    limiter.consume(key);
    expect(limiter.check(key)).toMatchObject({ allowed: false, headers: { 'RateLimit-Remaining': '0' } });
    await limiter.flush();
    expect(await storedPoints(key)).toBe(2);

    const unchecked = aKey();
    for (let n = 0; n < 5; n++) limiter.check(unchecked);
    await limiter.flush();
    expect(await storedPoints(unchecked)).toBeUndefined();
  });

  it('shares counts between replicas at each flush: a replica stops a key the others used up', async () => {
    const first = limiterOn(database.db, 5);
    const second = limiterOn(otherReplicaDb, 5);
    const key = aKey();
    for (let n = 0; n < 5; n++) expect(first.consume(key).allowed).toBe(true);
    await first.flush();
    // The second replica has not heard of the key yet: it admits one, and learns the total at its flush.
    expect(second.consume(key).allowed).toBe(true);
    await second.flush();
    expect(second.consume(key)).toMatchObject({ allowed: false, headers: { 'RateLimit-Remaining': '0' } });
    expect(await storedPoints(key)).toBe(6);
  });

  it(`two replicas under steady load go over a limit by at most the documented margin ((N − 1) × what one admits in a flush interval of ${DEFAULT_FLUSH_INTERVAL_MS} ms plus a round trip)`, async () => {
    const points = 60;
    const perReplicaRate = 100; // requests a second each
    const replicas = [limiterOn(database.db, points), limiterOn(otherReplicaDb, points)];
    const key = aKey();
    // The whole run must fall into one 60 s window: wait for the next one when this one ends too soon.
    const msLeftInWindow = 60_000 - (Date.now() % 60_000);
    if (msLeftInWindow < 4_000) await sleep(msLeftInWindow + 50);
    let admitted = 0;
    const started = performance.now();
    // 2.5 s at 100 requests a second on each replica: 500 requests against a limit of 60.
    while (performance.now() - started < 2_500) {
      for (const replica of replicas) if (replica.consume(key).allowed) admitted += 1;
      await sleep(1000 / perReplicaRate);
    }
    await Promise.all(replicas.map((replica) => replica.flush()));
    const margin = (replicas.length - 1) * perReplicaRate * ((DEFAULT_FLUSH_INTERVAL_MS + 100) / 1000);
    expect(admitted).toBeGreaterThanOrEqual(points);
    expect(admitted).toBeLessThanOrEqual(points + margin);
  });

  it('keeps limiting on its own while the store fails, and says so once', async () => {
    const broken = createDatabase('postgres://nobody@127.0.0.1:1/none', { poolMax: 1 });
    try {
      const limiter = limiterOn(broken, 2);
      const key = aKey();
      expect([1, 2, 3].map(() => limiter.consume(key).allowed)).toEqual([true, true, false]);
      await limiter.flush();
      expect(warnings.some((warning) => warning.startsWith('rate limit counts not shared'))).toBe(true);
      expect(limiter.consume(key).allowed).toBe(false);
    } finally {
      await broken.destroy();
    }
  });

  it('starts a new count when the window has passed', async () => {
    const limiter = limiterOn(database.db, 1, 1);
    const key = aKey();
    // Wait for the start of a fresh one-second window, so the two requests fall into one.
    await sleep(1000 - (Date.now() % 1000) + 10);
    expect(limiter.consume(key).allowed).toBe(true);
    expect(limiter.consume(key).allowed).toBe(false);
    await sleep(1000 - (Date.now() % 1000) + 10);
    expect(limiter.consume(key).allowed).toBe(true);
  });

  it('counts in Redis when a URL is given (skipped when no Redis answers at 127.0.0.1:6379)', async (context) => {
    const redisUrl = TEST_REDIS_URL;
    const redis = await connectTestRedis();
    if (!redis) return context.skip();
    try {
      const key = aKey();
      const first = limiterOn(database.db, 4, TEST_RATE_LIMIT_WINDOW_SECONDS, redisUrl);
      const second = limiterOn(otherReplicaDb, 4, TEST_RATE_LIMIT_WINDOW_SECONDS, redisUrl);
      // Each limiter's own client connects in the background; until it has, its counts stay
      // pending and a flush sends nothing, so flush until the count has arrived.
      const flushUntilStored = (limiter: ReturnType<typeof limiterOn>, count: string) =>
        vi.waitFor(
          async () => {
            await limiter.flush();
            expect(await redis.get(`test:${key}`)).toBe(count);
          },
          { timeout: 20_000, interval: 100 },
        );
      for (let n = 0; n < 3; n++) first.consume(key);
      await flushUntilStored(first, '3');
      second.consume(key);
      await flushUntilStored(second, '4');
      expect(await redis.pTTL(`test:${key}`)).toBeGreaterThan(0);
      expect(second.consume(key).allowed).toBe(false);
      expect(await storedPoints(key)).toBeUndefined();
    } finally {
      redis.destroy();
    }
  });
});
