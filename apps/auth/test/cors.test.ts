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
