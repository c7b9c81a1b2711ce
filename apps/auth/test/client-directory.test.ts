import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteClient, rotateClientSecret } from '../src/index';
import { type RunningAuthServer, startAuthServer } from './support/auth-server';
import { anApplication } from './support/factories';

/**
 * Each process keeps the applications it has read (provider/client-directory.ts). A change made
 * elsewhere (another replica, the CLI) must reach it through PostgreSQL's announcement, not after
 * the cache's ten minutes: these changes are made straight on the database, as another process
 * would, so this process learns of them only through the announcement.
 */
let server: RunningAuthServer;

beforeAll(async () => {
  server = await startAuthServer();
});
afterAll(() => server.stop());

/** Client authentication alone: an introspection of no real token answers 200 when the client is accepted. */
async function authenticates(clientId: string, secret: string): Promise<number> {
  const response = await fetch(`${server.baseUrl}/oauth/introspect`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ token: 'not-a-token' }),
  });
  return response.status;
}

async function eventually(check: () => Promise<boolean>, timeoutMs = 3_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return check();
}

describe('registered applications as the authorization server reads them', () => {
  it('refuses an old client secret soon after another process rotated it, and accepts the new one', async () => {
    const app = await anApplication(server.database.db);
    const oldSecret = app.client_secret as string;
    expect(await authenticates(app.client_id, oldSecret)).toBe(200);
    expect(await authenticates(app.client_id, oldSecret)).toBe(200); // now served from memory

    const rotated = await rotateClientSecret(server.database.db, app.owner.id, app.client_id);
    expect(await eventually(async () => (await authenticates(app.client_id, oldSecret)) === 401)).toBe(true);
    expect(await authenticates(app.client_id, rotated?.client_secret as string)).toBe(200);
  });

  it('forgets an application another process deleted', async () => {
    const app = await anApplication(server.database.db);
    expect(await authenticates(app.client_id, app.client_secret as string)).toBe(200);

    await deleteClient(server.database.db, app.owner.id, app.client_id);
    expect(
      await eventually(async () => (await authenticates(app.client_id, app.client_secret as string)) === 401),
    ).toBe(true);
  });
});
