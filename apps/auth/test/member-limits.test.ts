import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PERSONAL_TOKENS_PER_MEMBER } from '../src/lib/personal-tokens';
import { deleteClient, MAX_APPLICATIONS_PER_MEMBER, registerClient } from '../src/lib/registered-applications';
import { InputError } from '../src/lib/validation';
import { PERSONAL_ACCESS_CLIENT_ID } from '../src/provider/client-metadata';
import { type RunningAuthServer, startAuthServer } from './support/auth-server';
import { aMember } from './support/factories';
import { httpBrowser } from './support/http-browser';

/**
 * What one member can make is bounded: their settings pages list all of it, and each item is
 * rows that would otherwise grow with nothing but the member's clicks.
 */
let server: RunningAuthServer;
beforeAll(async () => {
  server = await startAuthServer();
});
afterAll(async () => server?.stop());

const register = (ownerId: number, index: number) =>
  registerClient(server.database.db, {
    ownerId,
    name: `App ${index}`,
    redirectUris: 'https://app.example/cb',
  });

describe('per-member limits', () => {
  it(`registers at most ${MAX_APPLICATIONS_PER_MEMBER} applications per member, also when the last places are asked for at once`, async () => {
    const member = await aMember(server.database.db);
    for (let index = 0; index < MAX_APPLICATIONS_PER_MEMBER - 3; index++) await register(member.id, index);
    // Five registrations at once for the last three places.
    const results = await Promise.allSettled([0, 1, 2, 3, 4].map((index) => register(member.id, 1000 + index)));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(3);
    for (const result of results.filter((outcome) => outcome.status === 'rejected')) {
      expect((result as PromiseRejectedResult).reason).toBeInstanceOf(InputError);
    }
    const owned = await server.database.db('oauth_clients').where({ owner_id: member.id }).select('client_id');
    expect(owned).toHaveLength(MAX_APPLICATIONS_PER_MEMBER);
    // The settings form says why.
    const browser = httpBrowser(server.baseUrl);
    await browser.signIn(member.email, member.password);
    const refused = await browser.submit('/settings/applications', '/settings/applications', {
      name: 'One too many',
      redirect_uris: 'https://app.example/cb',
    });
    expect(refused.status).toBe(422);
    expect(refused.html).toContain(`at most ${MAX_APPLICATIONS_PER_MEMBER} applications`);
    // A place freed is a place again.
    await deleteClient(server.database.db, member.id, (owned[0] as { client_id: string }).client_id);
    await expect(register(member.id, 2000)).resolves.toMatchObject({ client_id: expect.any(String) });
  });

  it(`creates at most ${MAX_PERSONAL_TOKENS_PER_MEMBER} personal tokens per member, leaving nothing behind for one refused`, async () => {
    const member = await aMember(server.database.db);
    const create = (index: number) =>
      server.auth.personalTokens.create(member.id, { name: `Script ${index}`, scopes: '*', days: 1 });
    for (let index = 0; index < MAX_PERSONAL_TOKENS_PER_MEMBER - 2; index++) await create(index);
    const results = await Promise.allSettled([0, 1, 2, 3].map((index) => create(1000 + index)));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(2);
    expect(await server.database.db('personal_access_tokens').where({ member_id: member.id })).toHaveLength(
      MAX_PERSONAL_TOKENS_PER_MEMBER,
    );
    // The refused ones left no live token or consent behind.
    const models = await server.database
      .db('oidc_models')
      .where({ account_id: String(member.id), client_id: PERSONAL_ACCESS_CLIENT_ID })
      .whereIn('model', ['AccessToken', 'Grant'])
      .count<{ n: string }>({ n: '*' })
      .first();
    expect(Number(models?.n)).toBe(2 * MAX_PERSONAL_TOKENS_PER_MEMBER);
  });
});
