import { randomBytes } from 'node:crypto';
import { TEST_RATE_LIMIT_WINDOW_SECONDS } from '@contacts/db/testing';
import { describe, expect, it } from 'vitest';
import { aClient } from './support/factories';
import { useStack } from './support/use-stack';

/** The API's limit on invalid tokens per caller address, small here (3 per window). */
const world = useStack({
  invalidTokenLimit: { points: 3, duration: TEST_RATE_LIMIT_WINDOW_SECONDS },
  client: false,
});

const madeUpToken = () => randomBytes(24).toString('base64url');

/** A request from `address` (the gateway's X-Forwarded-For, which the API trusts). */
const from = (address: string, path: string, token?: string) =>
  fetch(`${world.stack.apiUrl}${path}`, {
    headers: { 'x-forwarded-for': address, ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });

describe('invalid tokens per caller address', () => {
  it('refuses an address that sent too many invalid tokens with 429 in each version’s shape, until its window ends', async () => {
    const address = '203.0.113.50';
    for (let n = 0; n < 3; n++) expect((await from(address, '/v4/contacts', madeUpToken())).status).toBe(401);

    const v4 = await from(address, '/v4/contacts', madeUpToken());
    expect(v4.status).toBe(429);
    expect(await v4.json()).toEqual({ error: { code: 'rate_limited', message: expect.any(String) } });
    const retryAfter = Number(v4.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(TEST_RATE_LIMIT_WINDOW_SECONDS);
    expect(v4.headers.get('ratelimit-remaining')).toBe('0');
    const v3 = await from(address, '/v3/contacts', madeUpToken());
    expect(v3.status).toBe(429);
    expect(await v3.json()).toEqual({ message: expect.any(String) });

    // No token at all costs nothing and is told what is missing.
    expect((await from(address, '/v4/contacts')).status).toBe(401);
    // Other callers are not affected.
    expect((await from('203.0.113.51', '/v4/contacts', madeUpToken())).status).toBe(401);
  });

  it('keeps serving tokens it already holds as active on that address (a NAT shared with the attacker), but no new ones', async () => {
    const address = '2001:db8:50::1';
    const known = await aClient(world.stack);
    const unseen = await aClient(world.stack);
    expect((await from(address, '/v4/contacts', known.token)).status).toBe(200);
    // Fresh addresses of the same /64 are the same caller.
    for (let n = 0; n < 3; n++) {
      expect((await from(`2001:db8:50::${n + 2}`, '/v4/contacts', madeUpToken())).status).toBe(401);
    }
    expect((await from('2001:db8:50::99', '/v4/contacts', madeUpToken())).status).toBe(429);

    expect((await from(address, '/v4/contacts', known.token)).status).toBe(200);
    // A token this process would have to introspect waits for the window like a made-up one.
    expect((await from(address, '/v4/contacts', unseen.token)).status).toBe(429);
    expect((await from('2001:db8:51::1', '/v4/contacts', unseen.token)).status).toBe(200);
  });

  it('counts only invalid tokens: good tokens and other refusals (scope, not found) use up nothing', async () => {
    const address = '198.51.100.50';
    const reader = await aClient(world.stack, { scopes: ['contacts:read'] });
    for (let n = 0; n < 5; n++) {
      expect((await from(address, '/v4/contacts', reader.token)).status).toBe(200);
      expect((await from(address, '/v4/contacts/999999999', reader.token)).status).toBe(404);
    }
    const write = await fetch(`${world.stack.apiUrl}/v4/contacts`, {
      method: 'POST',
      headers: {
        'x-forwarded-for': address,
        authorization: `Bearer ${reader.token}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ name: 'Nope' }),
    });
    expect(write.status).toBe(403);
    for (let n = 0; n < 3; n++) expect((await from(address, '/v4/contacts', madeUpToken())).status).toBe(401);
    expect((await from(address, '/v4/contacts', madeUpToken())).status).toBe(429);
  });

  it('documents the 429 on the operations behind the token check', async () => {
    const document = (await (await fetch(`${world.stack.apiUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>>;
    };
    const answer = document.paths['/v4/contacts/{id}']?.get?.responses['429'];
    expect(answer?.description).toMatch(/invalid tokens from this address/);
  });
});
