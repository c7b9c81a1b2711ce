import { findOAuthClient } from '@contacts/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningAuthServer, startAuthServer } from './support/auth-server';
import { aMember } from './support/factories';
import { httpBrowser } from './support/http-browser';
import { discover } from './support/oauth-client';

let server: RunningAuthServer;
beforeAll(async () => {
  server = await startAuthServer();
});
afterAll(async () => server?.stop());

describe('DPoP at the authorization server', () => {
  it('advertises DPoP in its metadata', async () => {
    const as = await discover(server.baseUrl);
    expect(as.dpop_signing_alg_values_supported).toEqual(['ES256', 'Ed25519', 'EdDSA']);
  });

  it('registers a DPoP-required application from the settings form', async () => {
    const member = await aMember(server.database.db);
    const browser = httpBrowser(server.baseUrl);
    await browser.signIn(member.email, member.password);
    for (const [name, fields] of [
      ['Requires DPoP', { dpop_bound_access_tokens: 'on' }],
      ['Plain', {}],
    ] as const) {
      const created = await browser.submit('/settings/applications', '/settings/applications', {
        name,
        redirect_uris: 'http://localhost:4999/callback',
        ...fields,
      });
      expect(created.status).toBe(201);
      const clientId = /id="revealed-client-id">([^<]+)</.exec(created.html)?.[1] as string;
      const row = await findOAuthClient(server.database.db, clientId);
      expect(row?.dpop_bound_access_tokens).toBe(name === 'Requires DPoP');
      const client = await server.auth.provider.Client.find(clientId);
      expect(client?.metadata().dpop_bound_access_tokens).toBe(name === 'Requires DPoP');
    }
  });
});
