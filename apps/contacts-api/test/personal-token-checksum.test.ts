import { CONTACTS_API_RESOURCE, SUPPORTED_SCOPES } from '@contacts/auth';
import { generatePersonalTokenValue } from '@contacts/db';
import { describe, expect, it } from 'vitest';
import { useStack } from './support/use-stack';

const world = useStack();

const withToken = (token: string) =>
  fetch(`${world.stack.apiUrl}/v4/contacts`, { headers: { authorization: `Bearer ${token}` } });

/** The same token with its last checksum character changed. */
const withBadChecksum = (token: string) => `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;

describe('personal tokens that identify themselves', () => {
  it('accepts a new personal token (prefix and checksum)', async () => {
    expect(world.client.token).toMatch(/^mct_[0-9A-Za-z]{46}$/);
    expect((await withToken(world.client.token)).status).toBe(200);
  });

  it('still accepts a token in the old format (no prefix)', async () => {
    const created = await world.stack.auth.personalTokens.create(world.client.member.id, {
      name: 'old',
      scopes: ['contacts:read'],
    });
    // A token issued before the format existed: its value is whatever oidc-provider drew.
    const legacy = new world.stack.auth.provider.AccessToken({
      accountId: String(world.client.member.id),
      client: (await world.stack.auth.provider.Client.find('personal-access-tokens')) as never,
      scope: 'contacts:read',
      gty: 'personal_access_token',
      expiresIn: 3600,
      resourceServer: new world.stack.auth.provider.ResourceServer(CONTACTS_API_RESOURCE, {
        scope: SUPPORTED_SCOPES.join(' '),
        accessTokenFormat: 'opaque',
      }),
    } as never);
    const value = await legacy.save();
    expect(value).not.toMatch(/^mct_/);
    expect(created.token).toMatch(/^mct_/);
    expect((await withToken(value)).status).toBe(200);
  });

  it('refuses a wrong checksum without asking the authorization server', async () => {
    await world.stack.stopAuth();
    // With the authorization server down, a well-formed unknown token cannot be checked (503)…
    expect((await withToken(generatePersonalTokenValue())).status).toBe(503);
    // …but one whose checksum is wrong is refused at once, no introspection needed.
    const refused = await withToken(withBadChecksum(world.client.token));
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(await refused.json()).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
  });
});
