import { connectTestRedis, TEST_RATE_LIMIT_WINDOW_SECONDS, TEST_REDIS_URL } from '@contacts/db/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AUTHORIZATION_RATE_LIMIT } from '../src/http/authorization-rate-limit';
import { ADDRESS_ALLOWANCE_IN_CLIENTS, clientKey } from '../src/http/token-rate-limit';
import { type RunningAuthServer, startAuthServer } from './support/auth-server';
import { anApplication, type TestApplication } from './support/factories';
import { authorizeUrl, discover } from './support/oauth-client';

/** The token endpoint's rate limit per client, with a small limit (TOKEN_RATE_LIMIT=4 per 60 s). */
let server: RunningAuthServer;
let app: TestApplication;
let other: TestApplication;
beforeAll(async () => {
  server = await startAuthServer({ tokenRateLimit: { points: 4, duration: TEST_RATE_LIMIT_WINDOW_SECONDS } });
  app = await anApplication(server.database.db);
  other = await anApplication(server.database.db);
});
afterAll(async () => server?.stop());

const form = (params: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(`${server.baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(params),
  });
const basic = (client: TestApplication, secret = client.client_secret ?? '') =>
  `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

describe('token endpoint rate limit per client', () => {
  it('counts every token request of a client whatever its encoding, then answers 429 with Retry-After in the OAuth error shape', async () => {
    const refresh = { grant_type: 'refresh_token', refresh_token: 'not-a-token' };
    // The provider still parses the form it is handed: a wrong secret is invalid_client, a bad token invalid_grant.
    const wrongSecret = await form({ ...refresh, client_id: app.client_id, client_secret: 'wrong' });
    expect(wrongSecret.status).toBe(401);
    expect(((await wrongSecret.json()) as { error: string }).error).toBe('invalid_client');
    expect(wrongSecret.headers.get('ratelimit-limit')).toBe('4');
    expect(wrongSecret.headers.get('ratelimit-remaining')).toBe('3');
    const viaBasic = await form(refresh, { authorization: basic(app) });
    expect(((await viaBasic.json()) as { error: string }).error).toBe('invalid_grant');
    expect(viaBasic.headers.get('ratelimit-remaining')).toBe('2');
    const viaJson = await fetch(`${server.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...refresh, client_id: app.client_id, client_secret: app.client_secret }),
    });
    expect(((await viaJson.json()) as { error: string }).error).toBe('invalid_grant');
    expect(viaJson.headers.get('ratelimit-remaining')).toBe('1');
    expect(Number(viaJson.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    expect((await form({ ...refresh, client_id: app.client_id, client_secret: app.client_secret ?? '' })).status).toBe(
      400,
    );

    const limited = await form({ ...refresh, client_id: app.client_id, client_secret: app.client_secret ?? '' });
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual({ error: 'rate_limited', error_description: expect.any(String) });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(TEST_RATE_LIMIT_WINDOW_SECONDS);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect((await form(refresh, { authorization: basic(app) })).status).toBe(429);

    // Another client is not affected.
    const unaffected = await form(refresh, { authorization: basic(other) });
    expect(unaffected.status).toBe(400);
    expect(unaffected.headers.get('ratelimit-remaining')).toBe('3');
    // Nor the same client elsewhere: its other servers, each of a public client's users.
    const elsewhere = await form(refresh, { authorization: basic(app), 'x-forwarded-for': '198.51.100.7' });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.headers.get('ratelimit-remaining')).toBe('3');
    // Other endpoints are not limited by it.
    const introspection = await fetch(`${server.baseUrl}/oauth/introspect`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(app) },
      body: new URLSearchParams({ token: 'x' }),
    });
    expect(introspection.status).toBe(200);
    expect(introspection.headers.get('ratelimit-limit')).toBeNull();
  });

  it('cannot be used up by someone else: requests naming a client with a wrong secret, from another address', async () => {
    const victim = await anApplication(server.database.db);
    const attacker = { 'x-forwarded-for': '203.0.113.66' };
    const refresh = { grant_type: 'refresh_token', refresh_token: 'not-a-token' };
    const wrong = () => form({ ...refresh, client_id: victim.client_id, client_secret: 'guessed' }, attacker);
    for (let n = 0; n < 4; n++) expect((await wrong()).status).toBe(401);
    expect((await wrong()).status).toBe(429);
    // The client's own requests, from its own address, still reach the provider.
    const own = await form(refresh, { authorization: basic(victim) });
    expect(((await own.json()) as { error: string }).error).toBe('invalid_grant');
    expect(own.headers.get('ratelimit-remaining')).toBe('3');
  });

  it('lets a browser app read the 429 and when to retry (CORS headers, Retry-After exposed)', async () => {
    const origin = 'http://localhost:5176';
    const spa = await anApplication(server.database.db, { public: true, redirectUri: `${origin}/callback` });
    const refresh = { grant_type: 'refresh_token', refresh_token: 'not-a-token', client_id: spa.client_id };
    for (let n = 0; n < 4; n++) expect((await form(refresh, { origin })).status).toBe(400);
    const limited = await form(refresh, { origin });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('access-control-allow-origin')).toBe(origin);
    const exposed = limited.headers.get('access-control-expose-headers')?.split(', ');
    expect(exposed).toEqual(
      expect.arrayContaining(['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']),
    );
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it("gives an address no more than ten clients' allowance, however many client_ids it makes up", async () => {
    const caller = { 'x-forwarded-for': '198.51.100.99' };
    const made = (n: number) =>
      form({ grant_type: 'refresh_token', refresh_token: 'x', client_id: `made-up-${n}`, client_secret: 's' }, caller);
    const allowance = 4 * ADDRESS_ALLOWANCE_IN_CLIENTS;
    for (let n = 0; n < allowance; n++) expect((await made(n)).status).toBe(401);
    const refused = await made(allowance);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      error: 'rate_limited',
      error_description: expect.stringContaining('too many token requests from this address'),
    });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Other addresses are not affected.
    const elsewhere = await form(
      { grant_type: 'refresh_token', refresh_token: 'x' },
      { authorization: basic(app), 'x-forwarded-for': '198.51.100.100' },
    );
    expect(elsewhere.status).toBe(400);
  });

  it('counts requests naming no client in that allowance too', async () => {
    const caller = { 'x-forwarded-for': '198.51.100.101' };
    const allowance = 4 * ADDRESS_ALLOWANCE_IN_CLIENTS;
    for (let n = 0; n < 4; n++) expect((await form({ grant_type: 'refresh_token' }, caller)).status).toBe(401);
    for (let n = 4; n < allowance; n++) {
      const made = await form(
        { grant_type: 'refresh_token', refresh_token: 'x', client_id: `other-${n}`, client_secret: 's' },
        caller,
      );
      expect(made.status).toBe(401);
    }
    const refused = await form(
      { grant_type: 'refresh_token', refresh_token: 'x', client_id: 'one-more', client_secret: 's' },
      caller,
    );
    expect(refused.status).toBe(429);
  });

  it("counts every spelling of the token endpoint (oidc-provider's router ignores case and one trailing slash)", async () => {
    const spelled = await anApplication(server.database.db);
    const refresh = { grant_type: 'refresh_token', refresh_token: 'not-a-token' };
    const post = (path: string, init: { headers: Record<string, string>; body: string | URLSearchParams }) =>
      fetch(`${server.baseUrl}${path}`, { method: 'POST', ...init });
    const answers = [
      await post('/oauth/token/', { headers: { authorization: basic(spelled) }, body: new URLSearchParams(refresh) }),
      await post('/OAUTH/TOKEN', { headers: { authorization: basic(spelled) }, body: new URLSearchParams(refresh) }),
      await post('/oauth/Token/', { headers: { authorization: basic(spelled) }, body: new URLSearchParams(refresh) }),
      // A JSON body is translated under another spelling too.
      await post('/OAuth/token/', {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...refresh, client_id: spelled.client_id, client_secret: spelled.client_secret }),
      }),
    ];
    for (const answer of answers) expect(((await answer.json()) as { error: string }).error).toBe('invalid_grant');
    expect(answers.map((answer) => answer.headers.get('ratelimit-remaining'))).toEqual(['3', '2', '1', '0']);
    const limited = await post('/Oauth/Token/', {
      headers: { authorization: basic(spelled) },
      body: new URLSearchParams(refresh),
    });
    expect(limited.status).toBe(429);
    expect(((await limited.json()) as { error: string }).error).toBe('rate_limited');
  });

  it('counts requests that name no client by IP address, and refuses an oversized body with 413', async () => {
    const anonymous = await form({ grant_type: 'refresh_token' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('ratelimit-limit')).toBe('4');
    await vi.waitFor(
      async () =>
        expect(
          (await server.database.db('rate_limits').select('key')).map((row: { key: string }) => row.key),
        ).toContain('token_client:ip:127.0.0.1'),
      { timeout: 10_000 },
    );
    const huge = await form({ grant_type: 'refresh_token', padding: 'x'.repeat(60 * 1024) });
    expect(huge.status).toBe(413);
    expect(await huge.json()).toEqual({
      error: 'invalid_request',
      error_description: 'the request body is larger than 56 KiB',
    });
    // A JSON body too (it was called "not valid JSON"), and at the other endpoints.
    const hugeJson = await fetch(`${server.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'refresh_token', padding: 'x'.repeat(60 * 1024) }),
    });
    expect(hugeJson.status).toBe(413);
    expect(hugeJson.headers.get('cache-control')).toBe('no-store');
    await hugeJson.arrayBuffer();
    for (const endpoint of ['/oauth/introspect', '/oauth/revoke']) {
      const answer = await fetch(`${server.baseUrl}${endpoint}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(app) },
        body: new URLSearchParams({ token: 'x'.repeat(60 * 1024) }),
      });
      expect(answer.status, endpoint).toBe(413);
      await answer.arrayBuffer();
    }
    // Like every answer of the token endpoint (RFC 6749 §5.1), the provider's own errors included.
    expect(huge.headers.get('cache-control')).toBe('no-store');
    const notJson = await fetch(`${server.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{',
    });
    expect(notJson.status).toBe(400);
    expect(notJson.headers.get('cache-control')).toBe('no-store');
    expect(((await notJson.json()) as { error: string }).error).toBe('invalid_request');
  });

  it('keys the counts by a hash of the client_id, so that no client_id can break the shared batch', async () => {
    // A NUL (PostgreSQL text cannot hold one) or a client_id longer than the key column, in
    // HTTP Basic credentials: the provider refuses both; the count must still be shared.
    for (const id of ['%00', 'x'.repeat(300)]) {
      const response = await form(
        { grant_type: 'refresh_token', refresh_token: 'x' },
        { authorization: `Basic ${Buffer.from(`${id}:secret`).toString('base64')}` },
      );
      expect(response.status).toBeLessThan(500);
    }
    const client = await anApplication(server.database.db);
    expect(
      (await form({ grant_type: 'refresh_token', refresh_token: 'x' }, { authorization: basic(client) })).status,
    ).toBe(400);
    await vi.waitFor(
      async () =>
        expect(
          (await server.database.db('rate_limits').select('key')).map((row: { key: string }) => row.key),
        ).toContain(`token_client:${clientKey(client.client_id, 'ip:127.0.0.1')}`),
      { timeout: 10_000 },
    );
    const keys = (await server.database.db('rate_limits').select('key')).map((row: { key: string }) => row.key);
    expect(
      keys
        .filter((key) => key.startsWith('token_client:'))
        .every((key) => /^token_client:(client:[\w-]{43}:)?ip:[\d.]+$/.test(key)),
    ).toBe(true);
  });

  it('counts in Redis instead when REDIS_URL is set (skipped when no Redis answers at 127.0.0.1:6379)', async (context) => {
    const redisUrl = TEST_REDIS_URL;
    const redis = await connectTestRedis();
    if (!redis) return context.skip();
    const withRedis = await startAuthServer({
      tokenRateLimit: { points: 2, duration: TEST_RATE_LIMIT_WINDOW_SECONDS, redisUrl },
    });
    try {
      const client = await anApplication(withRedis.database.db);
      const statuses: number[] = [];
      for (let n = 0; n < 3; n++) {
        const response = await fetch(`${withRedis.baseUrl}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(client) },
          body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x' }),
        });
        statuses.push(response.status);
      }
      expect(statuses).toEqual([400, 400, 429]);
      // The counts reach Redis at a flush once the service's client has connected (in the background).
      await vi.waitFor(
        async () =>
          expect(await redis.keys(`token_client:${clientKey(client.client_id, 'ip:127.0.0.1')}`)).toHaveLength(1),
        {
          timeout: 20_000,
        },
      );
      expect(await withRedis.database.db('rate_limits').count({ n: '*' }).first()).toEqual({ n: 0 });
    } finally {
      await withRedis.stop();
      redis.destroy();
    }
  });
});

describe('failed client authentication at introspection and revocation', () => {
  const post = (
    endpoint: 'introspect' | 'revoke',
    params: Record<string, string>,
    headers: Record<string, string> = {},
  ) =>
    fetch(`${server.baseUrl}/oauth/${endpoint}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(params),
    });

  it('refuses a client and address 429 after 4 wrong secrets (both endpoints, header or form), the right secret too', async () => {
    const target = await anApplication(server.database.db);
    const from = { 'x-forwarded-for': '203.0.113.41' };
    const wrong = [
      () => post('introspect', { token: 'x' }, { ...from, authorization: basic(target, 'guess-1') }),
      () => post('revoke', { token: 'x', client_id: target.client_id, client_secret: 'guess-2' }, from),
      () => post('introspect', { token: 'x', client_id: target.client_id, client_secret: 'guess-3' }, from),
      () => post('revoke', { token: 'x' }, { ...from, authorization: basic(target, 'guess-4') }),
    ];
    for (const attempt of wrong) {
      const refused = await attempt();
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { error: string }).error).toBe('invalid_client');
    }
    const limited = await post('introspect', { token: 'x' }, { ...from, authorization: basic(target) });
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual({
      error: 'rate_limited',
      error_description: expect.stringContaining('too many failed client authentications for this client'),
    });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await post('revoke', { token: 'x' }, { ...from, authorization: basic(target) })).status).toBe(429);

    // The client's own servers elsewhere go on; so does another client at the guesser's address.
    expect(
      (await post('introspect', { token: 'x' }, { 'x-forwarded-for': '198.51.100.41', authorization: basic(target) }))
        .status,
    ).toBe(200);
    const bystander = await anApplication(server.database.db);
    expect((await post('introspect', { token: 'x' }, { ...from, authorization: basic(bystander) })).status).toBe(200);
  });

  it('does not count successful requests: a client introspecting all day is never refused', async () => {
    const busy = await anApplication(server.database.db);
    const from = { 'x-forwarded-for': '203.0.113.42', authorization: basic(busy) };
    for (let request = 0; request < 12; request++) {
      expect((await post(request % 2 ? 'revoke' : 'introspect', { token: `t${request}` }, from)).status).toBe(200);
    }
  });

  it("gives an address no more than ten clients' allowance of failures, however many client_ids it makes up", async () => {
    const from = { 'x-forwarded-for': '203.0.113.43' };
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 4 * ADDRESS_ALLOWANCE_IN_CLIENTS + 1; attempt++) {
      const response = await post(
        'introspect',
        { token: 'x', client_id: `made-up-${attempt}`, client_secret: 's' },
        from,
      );
      statuses.push(response.status);
    }
    expect(statuses.slice(0, -1).every((status) => status === 401)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
  });
});

describe('authorization endpoint rate limit per address', () => {
  it(`stores at most ${AUTHORIZATION_RATE_LIMIT.points} new authorization requests (interactions) per address per window, then answers 429 with a page`, async () => {
    const url = authorizeUrl(await discover(server.baseUrl), app, {
      scope: 'contacts:read',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    });
    const authorize = (address: string) =>
      fetch(url, { redirect: 'manual', headers: { 'x-forwarded-for': address, accept: 'text/html' } });
    const interactions = () =>
      server.database.db('oidc_models').where({ model: 'Interaction' }).count({ n: '*' }).first();
    // Windows are aligned to the epoch and this one is the shipped minute: the requests below take
    // seconds, so they start in a window with at least 20 s left (else one ends among them, about
    // one run in twenty, and the count starts again).
    const windowMs = AUTHORIZATION_RATE_LIMIT.duration * 1000;
    const left = windowMs - (Date.now() % windowMs);
    if (left < 20_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
    const before = Number((await interactions())?.n);
    const statuses: number[] = [];
    for (let request = 0; request < AUTHORIZATION_RATE_LIMIT.points; request++) {
      const response = await authorize('198.51.100.7');
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    expect(new Set(statuses)).toEqual(new Set([303]));
    const refused = await authorize('198.51.100.7');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.text()).toContain('Too many sign-in requests');
    expect(Number((await interactions())?.n) - before).toBe(AUTHORIZATION_RATE_LIMIT.points);
    // Another address has its own allowance.
    expect((await authorize('198.51.100.8')).status).toBe(303);
  }, 60_000);
});
