import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadAuthConfig } from '@contacts/auth';
import { createLogger } from '@contacts/config';
import { DEFAULT_FLUSH_INTERVAL_MS, tokenHash } from '@contacts/db';
import { connectTestRedis, TEST_RATE_LIMIT_WINDOW_SECONDS, TEST_REDIS_URL } from '@contacts/db/testing';
import { describe, expect, it, vi } from 'vitest';
import { createContactsApi } from '../src/index';
import { V3_DEPRECATED_AT } from '../src/routes/v3/deprecation';
import { testApiConfig } from './support/api-config';
import { aClient } from './support/factories';
import { startStack } from './support/servers';
import { useStack } from './support/use-stack';

/** The API's per-token rate limit, with a small limit (API_RATE_LIMIT=5 per 60 s). */
const world = useStack({ apiRateLimit: { points: 5, duration: TEST_RATE_LIMIT_WINDOW_SECONDS }, client: false });

describe('rate limit per token', () => {
  it("counts authenticated requests per token, with RateLimit-* headers, then answers 429 with Retry-After in each version's shape", async () => {
    const client = await aClient(world.stack);
    const other = await aClient(world.stack);
    for (let n = 1; n <= 5; n++) {
      const { status, response } = await client.json(n % 2 ? '/v4/contacts' : '/v3/contacts');
      expect(status).toBe(200);
      expect(response.headers.get('ratelimit-limit')).toBe('5');
      expect(response.headers.get('ratelimit-remaining')).toBe(String(5 - n));
      expect(Number(response.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    }
    const v4 = await client.json<{ error: { code: string; message: string } }>('/v4/contacts', {
      method: 'POST',
      json: { name: 'Over the limit' },
    });
    expect(v4.status).toBe(429);
    expect(v4.body).toEqual({ error: { code: 'rate_limited', message: expect.any(String) } });
    expect(Number(v4.response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(v4.response.headers.get('retry-after'))).toBeLessThanOrEqual(TEST_RATE_LIMIT_WINDOW_SECONDS);
    expect(v4.response.headers.get('ratelimit-remaining')).toBe('0');
    const v3 = await client.json<{ message: string }>('/v3/contacts');
    expect(v3.status).toBe(429);
    expect(v3.body).toEqual({ message: expect.any(String) });
    expect(Number(v3.response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(v3.response.headers.get('deprecation')).toBe(`@${V3_DEPRECATED_AT.getTime() / 1000}`);
    // Nothing was written by the refused request.
    expect(await world.stack.db('contacts').where({ owner_id: client.member.id }).count({ n: '*' }).first()).toEqual({
      n: 0,
    });

    // Another token is counted on its own; an unauthenticated request is not counted at all.
    expect((await other.json('/v4/contacts')).response.headers.get('ratelimit-remaining')).toBe('4');
    const anonymous = await fetch(`${world.stack.apiUrl}/v4/contacts`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('ratelimit-limit')).toBeNull();
  });

  it('shares the count between replicas through PostgreSQL at each flush, and stores no token value', async () => {
    const authConfig = await loadAuthConfig({ NODE_ENV: 'test', DATA_DIR: '/tmp/contacts-api-test-auth' }, { port: 0 });
    const replica = await createContactsApi({
      db: world.stack.db,
      config: await testApiConfig(
        { publicUrl: 'http://replica.test', authUrl: world.stack.authUrl },
        authConfig.secrets,
        {
          apiRateLimit: { points: 5, duration: TEST_RATE_LIMIT_WINDOW_SECONDS },
        },
      ),
      logger: createLogger('test', { NODE_ENV: 'test' }),
    });
    const server = createServer(replica.app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const replicaUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const client = await aClient(world.stack);
      const viaReplica = (path: string) =>
        fetch(`${replicaUrl}${path}`, { headers: { authorization: `Bearer ${client.token}` } });
      const storedCount = async () =>
        (
          await world.stack
            .db('rate_limits')
            .where({ key: `api_token:${tokenHash(client.token)}` })
            .first()
        )?.points;
      for (let n = 0; n < 4; n++) expect((await client.json('/v4/contacts')).status).toBe(200);
      // Each flush is awaited through its effect in PostgreSQL (a loaded machine may delay the timer).
      const flushed = async (count: number) => {
        await vi.waitFor(async () => expect(await storedCount()).toBe(count), { timeout: 10_000 });
        await sleep(100); // the flushing replica reads the total from the same answer
      };
      await flushed(4);
      // The replica admits the fifth request, learns the shared total at its flush, then refuses.
      expect((await viaReplica('/v4/contacts')).status).toBe(200);
      await flushed(5);
      expect((await viaReplica('/v4/contacts')).status).toBe(429);
      // The first replica still believes 4 were used until its next flush: the documented margin.
      const overshoot = (await client.json('/v4/contacts')).status;
      expect([200, 429]).toContain(overshoot);
      await flushed(overshoot === 200 ? 6 : 5);
      await sleep(DEFAULT_FLUSH_INTERVAL_MS);
      expect((await client.json('/v4/contacts')).status).toBe(429);
      expect(await storedCount()).toBeLessThanOrEqual(6);

      const keys = (await world.stack.db('rate_limits').select('key')).map((row: { key: string }) => row.key);
      expect(keys.some((key) => key.startsWith('api_token:'))).toBe(true);
      expect(keys.some((key) => key.includes(client.token))).toBe(false);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await replica.close();
    }
  });

  it('counts in Redis instead when REDIS_URL is set (skipped when no Redis answers at 127.0.0.1:6379)', async (context) => {
    const redisUrl = TEST_REDIS_URL;
    const redis = await connectTestRedis();
    if (!redis) return context.skip();
    const withRedis = await startStack({
      apiRateLimit: { points: 3, duration: TEST_RATE_LIMIT_WINDOW_SECONDS, redisUrl },
    });
    try {
      const client = await aClient(withRedis);
      const statuses: number[] = [];
      for (let n = 0; n < 4; n++) statuses.push((await client.json('/v4/contacts')).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      await vi.waitFor(async () => expect(await redis.get(`api_token:${tokenHash(client.token)}`)).toBe('3'), {
        timeout: 20_000,
      });
      expect(await withRedis.db('rate_limits').count({ n: '*' }).first()).toEqual({ n: 0 });
    } finally {
      await withRedis.close();
      redis.destroy();
    }
  });
});
