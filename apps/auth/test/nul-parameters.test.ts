import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningAuthServer, startAuthServer } from './support/auth-server';
import { anApplication, type TestApplication } from './support/factories';

/**
 * U+0000 in an OAuth request: PostgreSQL text and jsonb cannot hold it, so it is refused as
 * invalid_request before the provider stores anything (it was a 500 when the interaction, or a
 * lookup, reached the database).
 */
let server: RunningAuthServer;
let app: TestApplication;
beforeAll(async () => {
  server = await startAuthServer();
  app = await anApplication(server.database.db);
});
afterAll(async () => server?.stop());

const authorize = (params: Record<string, string>, accept = 'text/html') =>
  fetch(
    `${server.baseUrl}/oauth/authorize?${new URLSearchParams({
      client_id: app.client_id,
      redirect_uri: app.redirect_uri,
      response_type: 'code',
      scope: 'contacts:read',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      state: 'state-123',
      ...params,
    })}`,
    { redirect: 'manual', headers: { accept } },
  );
const basic = () => `Basic ${Buffer.from(`${app.client_id}:${app.client_secret}`).toString('base64')}`;
const storedModels = async () => Number((await server.database.db('oidc_models').count({ n: '*' }).first())?.n);

describe('NUL characters in OAuth requests', () => {
  it('refuses any authorization parameter holding one with a 400 invalid_request page, storing nothing', async () => {
    const before = await storedModels();
    for (const name of ['state', 'nonce', 'login_hint', 'prompt', 'client_id', 'redirect_uri', 'x_unknown']) {
      const response = await authorize({ [name]: 'value\u0000' });
      expect(response.status, name).toBe(400);
      expect(response.headers.get('location'), name).toBeNull();
      expect(await response.text(), name).toContain('invalid_request');
    }
    const onlyState = await fetch(`${server.baseUrl}/oauth/authorize?state=%00`, { redirect: 'manual' });
    expect(onlyState.status).toBe(400);
    expect((await fetch(`${server.baseUrl}/oauth/authorize/%00`, { redirect: 'manual' })).status).toBe(400);
    expect(await storedModels()).toBe(before);
    // The same request without it goes on to sign-in.
    expect((await authorize({})).status).toBe(303);
  });

  it("answers the provider's JSON error on the token, introspection and revocation endpoints", async () => {
    const post = (path: string, body: string, headers: Record<string, string> = {}) =>
      fetch(`${server.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...headers },
        body,
      });
    const answers = [
      await post('/oauth/token', 'grant_type=client_credentials&client_id=%00'),
      await post('/oauth/token', `grant_type=authorization_code&code=%00&client_id=${app.client_id}`),
      // A JSON token body (made form parameters by tokenJsonBody) is checked the same way.
      await fetch(`${server.baseUrl}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_type: 'client_credentials', client_id: '\u0000' }),
      }),
      await post('/oauth/introspect', 'token=%00', { authorization: basic() }),
      await post('/oauth/revoke', 'token=a%00b', { authorization: basic() }),
      await post('/oauth/token', '%00=x&grant_type=refresh_token'),
    ];
    for (const response of answers) {
      expect(response.status, response.url).toBe(400);
      expect(await response.json()).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
    }
  });
});
