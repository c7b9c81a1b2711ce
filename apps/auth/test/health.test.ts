import { createLogger } from '@contacts/config';
import { createTestDatabase, type TestDatabase } from '@contacts/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthServer, loadAuthConfig } from '../src/index';

let database: TestDatabase;
let baseUrl: string;
let close: () => Promise<void>;
beforeAll(async () => {
  database = await createTestDatabase();
  const config = await loadAuthConfig({ NODE_ENV: 'test', DATA_DIR: '/tmp/contacts-auth-test' }, { port: 0 });
  const auth = await createAuthServer({ db: database.db, config, logger: createLogger('auth', { NODE_ENV: 'test' }) });
  const server = auth.app.listen(0);
  await new Promise((resolve) => server.once('listening', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  close = async () => {
    server.close();
    await auth.close();
  };
});
afterAll(async () => {
  await close();
  await database.drop();
});

describe('auth health endpoints', () => {
  it('says it is alive and ready when the schema is current', async () => {
    expect(await (await fetch(`${baseUrl}/healthz`)).json()).toEqual({ status: 'ok', service: 'auth' });
    const ready = await fetch(`${baseUrl}/readyz`);
    expect(ready.status).toBe(200);
  });

  it('answers HEAD on /healthz, /readyz and /metrics as GET, without a body (probes that use HEAD)', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      const head = await fetch(`${baseUrl}${path}`, { method: 'HEAD' });
      expect(head.status, path).toBe(200);
      expect(await head.text(), path).toBe('');
    }
  });

  it('is not ready when a migration is missing', async () => {
    await database.db('knex_migrations').delete();
    const ready = await fetch(`${baseUrl}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ problems: { database: expect.stringContaining('migrations pending') } });
  });
});
