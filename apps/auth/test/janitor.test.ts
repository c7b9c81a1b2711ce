import { runJanitorPass } from '@contacts/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTACTS_API_RESOURCE, SUPPORTED_SCOPES } from '../src/index';
import { type RunningAuthServer, startAuthServer } from './support/auth-server';
import { aMember, anApplication, type TestApplication, type TestMember } from './support/factories';
import { discover, tokenRequest } from './support/oauth-client';

/** The janitor next to real token requests: what it deletes must not weaken refresh-token reuse detection. */
let server: RunningAuthServer;
let member: TestMember;
let app: TestApplication;
beforeAll(async () => {
  server = await startAuthServer();
  member = await aMember(server.database.db);
  app = await anApplication(server.database.db);
});
afterAll(async () => server?.stop());

/** A refresh token issued inside the server, as the code exchange would (no browser needed). */
async function aRefreshToken(): Promise<string> {
  const { provider } = server.auth;
  const client = await provider.Client.find(app.client_id);
  if (!client) throw new Error('test client not found');
  const scope = SUPPORTED_SCOPES.filter((item) => item !== '*').join(' ');
  const grant = new provider.Grant({ accountId: String(member.id), clientId: client.clientId });
  grant.addResourceScope(CONTACTS_API_RESOURCE, scope);
  const grantId = await grant.save();
  return new provider.RefreshToken({
    accountId: String(member.id),
    client,
    grantId,
    gty: 'authorization_code',
    scope,
    resource: CONTACTS_API_RESOURCE,
  }).save();
}

describe('janitor and refresh-token rotation', () => {
  it('keeps a used but unexpired refresh token, so that replaying it after a pass still revokes the grant', async () => {
    const as = await discover(server.baseUrl);
    const refresh = (refreshToken: string) =>
      tokenRequest(as, {
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: app.client_id,
        client_secret: app.client_secret ?? '',
      });
    const original = await aRefreshToken();
    const rotated = await refresh(original);
    expect(rotated.status).toBe(200);
    await server.database.db('oidc_models').insert({
      model: 'AccessToken',
      id_hash: 'long-expired',
      payload: '{}',
      expires_at: new Date(Date.now() - 3_600_000),
    });

    const report = await runJanitorPass(server.database.db, {
      auditRetentionDays: 365,
      syncTokenTtlSeconds: 2_592_000,
    });
    expect(report.deleted.oidc_models).toBe(1);

    const replayed = await refresh(original);
    expect(replayed.status).toBe(400);
    expect(replayed.body.error).toBe('invalid_grant');
    // Reuse detected: the whole grant is revoked, the rotated token with it.
    const afterTheft = await refresh(rotated.body.refresh_token as string);
    expect(afterTheft.status).toBe(400);
    expect(afterTheft.body.error).toBe('invalid_grant');
  });

  it("gives a personal token's consent (its Grant row) the token's own lifetime, so that neither outlives the other", async () => {
    const created = await server.auth.personalTokens.create(member.id, { name: 'one day', scopes: '*', days: 1 });
    const row = await server.database.db('personal_access_tokens').where({ id: created.id }).first('grant_id');
    const expiries = await server.database
      .db('oidc_models')
      .where({ grant_id: row.grant_id })
      .select('model', 'expires_at');
    const byModel = Object.fromEntries(expiries.map((entry) => [entry.model, new Date(entry.expires_at).getTime()]));
    expect(Object.keys(byModel).sort()).toEqual(['AccessToken', 'Grant']);
    const tokenExpiry = new Date(created.expires_at).getTime();
    // The grant a minute longer: the token never outlives it.
    expect((byModel.Grant as number) - tokenExpiry).toBeGreaterThanOrEqual(55_000);
    expect((byModel.Grant as number) - tokenExpiry).toBeLessThan(65_000);
    expect(Math.abs((byModel.AccessToken as number) - tokenExpiry)).toBeLessThan(5_000);
  });

  it('exposes the rows deleted per kind and the estimated size of each growing table at /metrics', async () => {
    const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
    for (const kind of ['oidc_models', 'member_sessions', 'rate_limits', 'audit_events', 'personal_access_tokens']) {
      expect(text).toMatch(new RegExp(`^janitor_rows_deleted_total\\{kind="${kind}"[^}]*\\} 0$`, 'm'));
      expect(text).toMatch(new RegExp(`^db_table_rows_estimated\\{table="${kind}"[^}]*\\} \\d+$`, 'm'));
    }
    expect(text).toMatch(/^janitor_passes_total\{outcome="ran"[^}]*\} 0$/m);
  });
});
