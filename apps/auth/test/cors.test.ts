import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningAuthServer, startAuthServer } from './support/auth-server';
import { anApplication } from './support/factories';

let server: RunningAuthServer;
beforeAll(async () => {
  server = await startAuthServer();
});
afterAll(async () => server?.stop());

/** A cross-origin call to the token endpoint, as a browser sends it (after its preflight). */
const fromOrigin = (origin: string, form: Record<string, string>) =>
  fetch(`${server.baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });

describe('cross-origin requests to the token endpoint (SECURITY.md, 2.6)', () => {
  it("answers a public client from its own redirect URI's origin, and nobody else", async () => {
    const spa = await anApplication(server.database.db, {
      public: true,
      redirectUri: 'http://localhost:5173/callback',
    });
    const form = {
      grant_type: 'authorization_code',
      code: 'unknown',
      client_id: spa.client_id,
      code_verifier: 'x'.repeat(43),
      redirect_uri: spa.redirect_uri,
    };

    const own = await fromOrigin('http://localhost:5173', form);
    expect(own.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(((await own.json()) as { error: string }).error).toBe('invalid_grant');

    const other = await fromOrigin('https://evil.example', form);
    expect(other.status).toBe(400);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    expect(((await other.json()) as { error: string }).error).toBe('invalid_request');
  });

  it('refuses a confidential client from any origin, even its redirect URI’s', async () => {
    const app = await anApplication(server.database.db, { redirectUri: 'http://localhost:5174/callback' });
    const response = await fromOrigin('http://localhost:5174', {
      grant_type: 'authorization_code',
      code: 'unknown',
      client_id: app.client_id,
      client_secret: app.client_secret ?? '',
      redirect_uri: app.redirect_uri,
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe("answers made before oidc-provider's router, to a browser app (the oauthlib probe's F1)", () => {
  const origin = 'http://localhost:5175';
  let clientId: string;
  beforeAll(async () => {
    clientId = (await anApplication(server.database.db, { public: true, redirectUri: `${origin}/callback` })).client_id;
  });

  const corsHeaders = (response: Response) => ({
    allowOrigin: response.headers.get('access-control-allow-origin'),
    expose: response.headers.get('access-control-expose-headers'),
    vary: response.headers.get('vary'),
  });
  const post = (path: string, contentType: string, body: string) =>
    fetch(`${server.baseUrl}${path}`, { method: 'POST', headers: { origin, 'content-type': contentType }, body });
  const formOf = (params: Record<string, string>) => new URLSearchParams(params).toString();
  const FORM = 'application/x-www-form-urlencoded';

  it("carry the CORS headers of the provider's own answers, so the app can read the error", async () => {
    // The provider's own answer to this app: an unknown refresh token.
    const own = await post(
      '/oauth/token',
      FORM,
      formOf({ grant_type: 'refresh_token', refresh_token: 'x', client_id: clientId }),
    );
    expect(((await own.json()) as { error: string }).error).toBe('invalid_grant');
    const expected = corsHeaders(own);
    expect(expected.allowOrigin).toBe(origin);
    expect(expected.expose?.split(', ')).toEqual(
      expect.arrayContaining([
        'WWW-Authenticate',
        'Retry-After',
        'RateLimit-Limit',
        'RateLimit-Remaining',
        'RateLimit-Reset',
      ]),
    );

    const big = 'x'.repeat(60 * 1024);
    const early: [string, () => Promise<Response>, number][] = [
      ['malformed JSON', () => post('/oauth/token', 'application/json', '{bad'), 400],
      ['a JSON array', () => post('/oauth/token', 'application/json', '[1]'), 400],
      ['a JSON list for scope', () => post('/oauth/token', 'application/json', JSON.stringify({ scope: ['*'] })), 400],
      ['a JSON body over the limit', () => post('/oauth/token', 'application/json', JSON.stringify({ big })), 413],
      ['a NUL at the token endpoint', () => post('/oauth/token', FORM, 'refresh_token=a%00b'), 400],
      ['a NUL at the revocation endpoint', () => post('/oauth/revoke', FORM, 'token=a%00b'), 400],
      ['a NUL at the introspection endpoint', () => post('/oauth/introspect', FORM, 'token=a%00b'), 400],
      ['a form over the limit at the token endpoint', () => post('/oauth/token', FORM, formOf({ big })), 413],
      ['a form over the limit at the revocation endpoint', () => post('/oauth/revoke', FORM, formOf({ big })), 413],
      [
        'a form over the limit at the introspection endpoint',
        () => post('/oauth/introspect', FORM, formOf({ big })),
        413,
      ],
      ['GET of the token endpoint', () => fetch(`${server.baseUrl}/oauth/token`, { headers: { origin } }), 405],
    ];
    for (const [what, send, status] of early) {
      const response = await send();
      expect(response.status, what).toBe(status);
      expect(((await response.json()) as { error: string }).error, what).toBe('invalid_request');
      expect(corsHeaders(response), what).toEqual(expected);
    }
  });

  it('lets a public document be read whatever went wrong, as the provider does', async () => {
    const wrongMethod = await fetch(`${server.baseUrl}/.well-known/oauth-authorization-server`, {
      method: 'POST',
      headers: { origin },
    });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('access-control-allow-origin')).toBe(origin);
  });
});
