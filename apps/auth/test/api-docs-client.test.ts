import { API_DOCS_CLIENT_ID, apiDocsRedirectUri } from '@contacts/config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningAuthServer, startAuthServer } from './support/auth-server';
import { authorizeUrl, discover, type oauth } from './support/oauth-client';

/** The built-in public client of Swagger UI at /docs: what the authorization server allows it. */
describe('the API docs client', () => {
  let server: RunningAuthServer;
  let as: oauth.AuthorizationServer;
  let docsClient: { client_id: string; redirect_uri: string };
  const challenge = { code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' };

  beforeAll(async () => {
    server = await startAuthServer();
    as = await discover(server.baseUrl);
    docsClient = { client_id: API_DOCS_CLIENT_ID, redirect_uri: apiDocsRedirectUri(server.baseUrl) };
  });
  afterAll(async () => {
    await server?.stop();
  });

  const authorize = (params: Record<string, string>, client = docsClient) =>
    fetch(authorizeUrl(as, client, params), { redirect: 'manual', headers: { accept: 'text/html' } });

  it('starts a sign-in for its callback under the public URL, with PKCE (S256)', async () => {
    const response = await authorize({ scope: 'contacts:read', ...challenge });
    expect(response.status).toBe(303);
    expect(new URL(response.headers.get('location') as string, server.baseUrl).pathname).toMatch(/^\/interaction\//);
  });

  it('is refused without PKCE: it is a public client', async () => {
    const response = await authorize({ scope: 'contacts:read' });
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get('location') as string);
    expect(location.origin + location.pathname).toBe(docsClient.redirect_uri);
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('error_description')).toContain('requires PKCE');
  });

  it('never redirects anywhere but the docs callback of this public URL', async () => {
    for (const redirectUri of [
      'http://localhost:3000/docs/oauth2-redirect.html',
      `${server.baseUrl}/docs/`,
      `${docsClient.redirect_uri}?x=1`,
      'https://attacker.example/docs/oauth2-redirect.html',
    ]) {
      const response = await authorize(challenge, { ...docsClient, redirect_uri: redirectUri });
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
    }
  });

  it('cannot authenticate with a secret at the token endpoint (it has none)', async () => {
    const response = await fetch(as.token_endpoint as string, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${API_DOCS_CLIENT_ID}:guessed`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials' }).toString(),
    });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: string }).error).toBe('invalid_client');
  });
});
