import { describe, expect, it } from 'vitest';
import { startStack } from './support/servers';
import { useStack } from './support/use-stack';

const world = useStack({ client: false });

describe('contacts-api health endpoints', () => {
  it('says it is alive, and ready when the schema is current and the auth server answers', async () => {
    expect(await (await fetch(`${world.stack.apiUrl}/healthz`)).json()).toEqual({
      status: 'ok',
      service: 'contacts-api',
    });
    const ready = await fetch(`${world.stack.apiUrl}/readyz`);
    expect(ready.status).toBe(200);
  });

  it('is not ready when AUTH_INTERNAL_URL reaches something other than the authorization server (itself here)', async () => {
    const misdirected = await startStack({ authInternalUrlIsTheApi: true });
    try {
      const ready = await fetch(`${misdirected.apiUrl}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({
        problems: {
          authorization_server: `AUTH_INTERNAL_URL (${misdirected.apiUrl}) reaches the contacts-api service, not the authorization server`,
        },
      });
    } finally {
      await misdirected.close();
    }
  });

  it('is not ready when the auth server refuses its introspection credentials, and says which ones', async () => {
    const mistaken = await startStack({ wrongIntrospectionSecret: true });
    try {
      const ready = await fetch(`${mistaken.apiUrl}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({
        problems: {
          authorization_server: expect.stringMatching(
            /refuses the introspection credentials.*INTROSPECTION_CLIENT_SECRET/,
          ),
        },
      });
    } finally {
      await mistaken.close();
    }
  });

  it('is not ready when a migration is missing', async () => {
    await world.stack.db('knex_migrations').delete();
    const ready = await fetch(`${world.stack.apiUrl}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ problems: { database: expect.stringContaining('migrations pending') } });
  });
});
