import { describe, expect, it } from 'vitest';
import { aClient } from './support/factories';
import { useStack } from './support/use-stack';

const world = useStack({ client: false });

describe('bearer tokens (RFC 6750) checked by introspection at the real authorization server', () => {
  it.each([
    ['no Authorization header', undefined],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
  ])('refuses %s with 401 and a challenge without an error code (RFC 6750 §3.1)', async (_, header) => {
    for (const path of ['/v4/contacts', '/v3/contacts']) {
      const response = await fetch(`${world.stack.apiUrl}${path}`, {
        headers: header ? { authorization: header } : {},
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="contacts"');
      expect(await response.json()).toEqual(
        path === '/v3/contacts'
          ? { message: 'Unauthenticated.' }
          : { error: { code: 'unauthorized', message: expect.any(String) } },
      );
    }
  });

  it.each([
    ['a token the auth server never issued', 'Bearer not-a-real-token'],
    ['a malformed bearer credential', 'Bearer not a token'],
    ['the Bearer scheme without a token', 'Bearer'],
  ])('refuses %s with 401 invalid_token', async (_, header) => {
    const response = await fetch(`${world.stack.apiUrl}/v4/contacts`, { headers: { authorization: header } });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm="contacts", error="invalid_token"/);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
  });

  it('needs contacts:read to read and contacts:write to write (403 insufficient_scope); * allows both', async () => {
    const reader = await aClient(world.stack, { scopes: ['contacts:read'] });
    const writer = await aClient(world.stack, { scopes: ['contacts:write'] });
    const everything = await aClient(world.stack, { scopes: ['*'] });

    expect((await reader.json('/v4/contacts')).status).toBe(200);
    const refusedWrite = await reader.json('/v4/contacts', { method: 'POST', json: { name: 'x' } });
    expect(refusedWrite.status).toBe(403);
    expect(refusedWrite.response.headers.get('www-authenticate')).toMatch(
      /^Bearer realm="contacts", error="insufficient_scope", .*scope="contacts:write"/,
    );

    expect((await writer.json('/v4/contacts', { method: 'POST', json: { name: 'x' } })).status).toBe(201);
    expect((await writer.json('/v4/contacts')).status).toBe(403);
    expect((await writer.json('/v4/groups')).status).toBe(403);

    expect((await everything.json('/v4/contacts')).status).toBe(200);
    expect((await everything.json('/v4/contacts', { method: 'POST', json: { name: 'y' } })).status).toBe(201);
  });

  it('refuses a revoked token on the very next request, with the cache warm', async () => {
    const client = await aClient(world.stack);
    for (let i = 0; i < 3; i++) expect((await client.json('/v4/contacts')).status).toBe(200);
    await world.stack.auth.personalTokens.revoke(client.member.id, client.tokenId);
    const after = await client.json('/v4/contacts');
    expect(after.status).toBe(401);
    expect(after.response.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
  });

  it('bypasses the cache while the LISTEN connection is down, and recovers', async () => {
    const client = await aClient(world.stack);
    expect((await client.json('/v4/contacts')).status).toBe(200);
    // Kill the listener's backend from the outside, as a failover or network cut would.
    await world.stack.db.raw(
      "select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'contacts-listen' and datname = current_database()",
    );
    await waitUntil(() => !world.stack.api.revocations.listening);
    // A revocation announced while nobody listens is missed, yet the token is refused.
    await world.stack.auth.personalTokens.revoke(client.member.id, client.tokenId);
    expect((await client.json('/v4/contacts')).status).toBe(401);
    await waitUntil(() => world.stack.api.revocations.listening);
    const fresh = await aClient(world.stack);
    expect((await fresh.json('/v4/contacts')).status).toBe(200);
  });
});

describe('authorization server down', () => {
  it('keeps cached tokens working, answers 503 (not 401, not 500) for others, and /readyz says so', async () => {
    const cached = await aClient(world.stack);
    const uncached = await aClient(world.stack);
    expect((await cached.json('/v4/contacts')).status).toBe(200);
    expect((await fetch(`${world.stack.apiUrl}/readyz`)).status).toBe(200);

    await world.stack.stopAuth();

    expect((await cached.json('/v4/contacts')).status).toBe(200);
    const refused = await uncached.json<{ error: { code: string } }>('/v4/contacts');
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('authorization_server_unavailable');
    const ready = await fetch(`${world.stack.apiUrl}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({
      problems: { authorization_server: 'authorization server unreachable' },
    });
  });
});

async function waitUntil(condition: () => boolean): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > 10_000) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
