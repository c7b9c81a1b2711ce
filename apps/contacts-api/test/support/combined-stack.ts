import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AuthServer, createAuthServer, loadAuthConfig } from '@contacts/auth';
import { createLogger, isContactsApiPath } from '@contacts/config';
import type { Database } from '@contacts/db';
import { createTestDatabase } from '@contacts/db/testing';
import { type ContactsApi, createContactsApi } from '../../src/index';
import { testApiConfig } from './api-config';
import { waitFor } from './servers';

/**
 * Both services behind one base URL, as `pnpm start` and the gateway serve them: one HTTP server
 * that hands each request to the contacts API or the authorization server by the shared routing
 * table. A browser flow that crosses both (the docs page's Authorize button) needs this.
 */
export interface CombinedStack {
  db: Database;
  baseUrl: string;
  close(): Promise<void>;
}

export async function startCombinedStack(): Promise<CombinedStack> {
  const database = await createTestDatabase();
  const logger = createLogger('test', { NODE_ENV: 'test' });
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const authConfig = await loadAuthConfig(
    { NODE_ENV: 'test', DATA_DIR: '/tmp/contacts-api-test-auth', PUBLIC_URL: baseUrl },
    { port: 0 },
  );
  const auth: AuthServer = await createAuthServer({ db: database.db, config: authConfig, logger });
  const api: ContactsApi = await createContactsApi({
    db: database.db,
    logger,
    config: await testApiConfig({ publicUrl: baseUrl, authUrl: baseUrl }, authConfig.secrets),
  });
  const toApi = api.app.callback();
  const toAuth = auth.app.callback();
  server.on('request', (req, res) => (isContactsApiPath(req.url ?? '/') ? toApi(req, res) : toAuth(req, res)));
  await waitFor(() => api.revocations.listening);

  return {
    db: database.db,
    baseUrl,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await api.close();
      await auth.close();
      await database.drop();
    },
  };
}
