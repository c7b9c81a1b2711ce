import { generatePersonalTokenValue, isWellFormedPersonalToken, PERSONAL_TOKEN_PATTERN } from '@contacts/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningAuthServer, startAuthServer } from './support/auth-server';
import { aMember } from './support/factories';
import { httpBrowser } from './support/http-browser';

let server: RunningAuthServer;
beforeAll(async () => {
  server = await startAuthServer();
});
afterAll(async () => server?.stop());

const report = (body: unknown, contentType = 'application/json', ip?: string) =>
  fetch(`${server.baseUrl}/oauth/revoke-leaked`, {
    method: 'POST',
    headers: { 'content-type': contentType, ...(ip ? { 'x-forwarded-for': ip } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

const aToken = async (memberId: number) =>
  server.auth.personalTokens.create(memberId, { name: `t${Math.random()}`, scopes: ['contacts:read'] });

const isLive = async (token: string) => (await server.auth.provider.AccessToken.find(token)) !== undefined;

describe('personal token format', () => {
  it('starts with mct_, matches the scanner pattern, and carries a valid checksum', async () => {
    const member = await aMember(server.database.db);
    const { token } = await aToken(member.id);
    expect(token).toMatch(/^mct_[0-9A-Za-z]{46}$/);
    expect(PERSONAL_TOKEN_PATTERN.test(`leaked: ${token} oops`)).toBe(true);
    expect(isWellFormedPersonalToken(token)).toBe(true);
  });

  it('detects a changed character through the checksum', () => {
    for (let i = 0; i < 200; i += 1) {
      const token = generatePersonalTokenValue();
      const at = 4 + (i % 46);
      const swapped = token[at] === 'a' ? 'b' : 'a';
      expect(isWellFormedPersonalToken(`${token.slice(0, at)}${swapped}${token.slice(at + 1)}`)).toBe(false);
    }
  });
});

describe('the internal client that owns personal tokens', () => {
  it('cannot authenticate: introspection and revocation in its name are refused, the token stays live', async () => {
    const member = await aMember(server.database.db);
    const { token } = await aToken(member.id);
    for (const endpoint of ['/oauth/introspect', '/oauth/revoke']) {
      const response = await fetch(`${server.baseUrl}${endpoint}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token, client_id: 'personal-access-tokens' }),
      });
      expect(response.status).toBe(401);
      expect(((await response.json()) as { error: string }).error).toBe('invalid_client');
    }
    expect(await isLive(token)).toBe(true);
  });
});

describe('POST /oauth/revoke-leaked', () => {
  it('revokes valid personal tokens among the values, logs it for the owner, and answers 202 with the count', async () => {
    const member = await aMember(server.database.db);
    const leaked = await aToken(member.id);
    const kept = await aToken(member.id);
    const response = await report({ tokens: [leaked.token, 'nonsense', generatePersonalTokenValue()] });
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ received: 3 });
    expect(await isLive(leaked.token)).toBe(false);
    expect(await isLive(kept.token)).toBe(true);
    const events = await server.database
      .db('audit_events')
      .where({ member_id: member.id, event: 'personal_token.reported_leaked' });
    expect(events).toHaveLength(1);
    expect(events[0].details).toEqual({ token_id: leaked.id });
    expect(events[0].created_at).toBeInstanceOf(Date);
  });

  it('takes a form with several token fields', async () => {
    const member = await aMember(server.database.db);
    const one = await aToken(member.id);
    const two = await aToken(member.id);
    const form = new URLSearchParams([
      ['token', one.token],
      ['token', two.token],
    ]);
    const response = await report(form.toString(), 'application/x-www-form-urlencoded');
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ received: 2 });
    expect(await isLive(one.token)).toBe(false);
    expect(await isLive(two.token)).toBe(false);
  });

  it('answers the same for values that are no tokens (no oracle)', async () => {
    const response = await report({ tokens: ['a'] });
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ received: 1 });
  });

  it('answers other methods as the OAuth endpoints beside it do: OPTIONS 204, others 405 invalid_request, with Allow', async () => {
    const options = await fetch(`${server.baseUrl}/oauth/revoke-leaked`, { method: 'OPTIONS' });
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('POST, OPTIONS');
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const response = await fetch(`${server.baseUrl}/oauth/revoke-leaked`, { method });
      expect(response.status, method).toBe(405);
      expect(response.headers.get('allow'), method).toBe('POST, OPTIONS');
      expect(await response.json(), method).toEqual({
        error: 'invalid_request',
        error_description: '/oauth/revoke-leaked accepts POST only',
      });
    }
  });

  it('does nothing more for a token that is already revoked', async () => {
    const member = await aMember(server.database.db);
    const token = await aToken(member.id);
    await server.database.db('personal_access_tokens').where({ id: token.id }).update({ revoked_at: new Date() });
    const response = await report({ tokens: [token.token] });
    expect(response.status).toBe(202);
    // Already marked revoked: nothing more happens and nothing is logged again.
    const events = await server.database.db('audit_events').where({ member_id: member.id });
    expect(events.map((event) => event.event)).not.toContain('personal_token.reported_leaked');
  });

  it('flags the token on the tokens page once it expires within 7 days', async () => {
    const member = await aMember(server.database.db);
    await server.auth.personalTokens.create(member.id, { name: 'soon', scopes: ['contacts:read'], days: 6 });
    await server.auth.personalTokens.create(member.id, { name: 'later', scopes: ['contacts:read'], days: 30 });
    const browser = httpBrowser(server.baseUrl);
    await browser.signIn(member.email, member.password);
    const page = await browser.get('/settings/tokens');
    const rows = page.html.split('<tr>').slice(1);
    expect(rows.find((row) => row.includes('<td data-label="Name">soon</td>'))).toContain('Expires soon');
    expect(rows.find((row) => row.includes('<td data-label="Name">later</td>'))).not.toContain('Expires soon');
  });

  it.each([
    { why: 'an empty list', body: { tokens: [] } },
    { why: '101 values', body: { tokens: Array.from({ length: 101 }, (_, i) => `v${i}`) } },
    { why: 'a number among the values', body: { tokens: ['a', 1] } },
    { why: 'an empty string', body: { tokens: [''] } },
    { why: 'no tokens field', body: { token: 'a' } },
    { why: 'a JSON array', body: ['a'] },
    { why: 'malformed JSON', body: '{"tokens":' },
    { why: 'a form without token fields', body: 'x=1', type: 'application/x-www-form-urlencoded' },
    { why: 'plain text', body: 'mct_x', type: 'text/plain' },
  ])('answers 400 in the OAuth error shape for $why', async ({ body, type }) => {
    const response = await report(body, type);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
  });

  it('is rate-limited per IP address', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 31; i += 1) statuses.push((await report({ tokens: ['x'] }, undefined, '203.0.113.9')).status);
    expect(statuses.slice(0, 30).every((status) => status === 202)).toBe(true);
    const limited = await report({ tokens: ['x'] }, undefined, '203.0.113.9');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await limited.json()).toMatchObject({ error: 'rate_limited' });
    expect((await report({ tokens: ['x'] }, undefined, '203.0.113.10')).status).toBe(202);
  });

  it('counts an IPv6 caller by its /64: fresh addresses of one network share one allowance', async () => {
    const network = '2001:db8:7:1';
    const statuses: number[] = [];
    for (let i = 1; i <= 31; i += 1) {
      statuses.push((await report({ tokens: ['x'] }, undefined, `${network}:${i.toString(16)}::${i}`)).status);
    }
    expect(statuses.slice(0, 30).every((status) => status === 202)).toBe(true);
    expect(statuses[30]).toBe(429);
    // The same network written out in full is the same caller; the next /64 is another one.
    expect((await report({ tokens: ['x'] }, undefined, '2001:0db8:0007:0001:ffff:0:0:1')).status).toBe(429);
    expect((await report({ tokens: ['x'] }, undefined, '2001:db8:7:2::1')).status).toBe(202);
  });
});
