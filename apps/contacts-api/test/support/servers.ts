import type { Server } from 'node:http';
import { type AuthServer, createAuthServer, loadAuthConfig } from '@contacts/auth';
import type { RateLimit } from '@contacts/config';
import { createLogger } from '@contacts/config';
import type { Database } from '@contacts/db';
import { createTestDatabase, type TestDatabase } from '@contacts/db/testing';
import { type ContactsApi, type ContactsApiConfig, createContactsApi } from '../../src/index';
import { testApiConfig } from './api-config';

/**
 * A real authorization server and a real contacts API on one test database, each on its own
 * port, the API introspecting at the auth server with the shared client credentials.
 */
export interface Stack {
  db: Database;
  auth: AuthServer;
  api: ContactsApi;
  apiUrl: string;
  authUrl: string;
  /** The API's configuration (a second replica of it can be started on the same database). */
  apiConfig: ContactsApiConfig;
  /** Stops the auth server's HTTP listener (the "authorization server down" case). */
  stopAuth(): Promise<void>;
  close(): Promise<void>;
}

async function listen(
  handler: Parameters<typeof import('node:http').createServer>[1],
): Promise<{ server: Server; url: string }> {
  const { createServer } = await import('node:http');
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` };
}

async function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

export interface StackOptions {
  /** The API's per-token rate limit (off unless given). */
  apiRateLimit?: RateLimit;
  /** The API's limit on invalid tokens per caller address (off unless given). */
  invalidTokenLimit?: RateLimit;
  /** AUTH_INTERNAL_URL set to the API's own URL, an operator's mistake (the auth server runs all the same). */
  authInternalUrlIsTheApi?: boolean;
  /** An INTROSPECTION_CLIENT_SECRET the auth server does not have, an operator's mistake. */
  wrongIntrospectionSecret?: boolean;
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const database: TestDatabase = await createTestDatabase();
  const logger = createLogger('test', { NODE_ENV: 'test' });
  // The issuer must be the URL the auth server answers at (OAuth clients check it); reserve the port first.
  const authListener = await listen(() => {});
  const authConfig = await loadAuthConfig(
    { NODE_ENV: 'test', DATA_DIR: '/tmp/contacts-api-test-auth', PUBLIC_URL: authListener.url },
    { port: 0 },
  );
  const auth = await createAuthServer({ db: database.db, config: authConfig, logger });
  authListener.server.removeAllListeners('request');
  authListener.server.on('request', auth.app.callback());
  let authUp = true;

  // The API's public URL must be known before it starts (image_url); reserve the port first.
  const apiListener = await listen(() => {});
  const config = await testApiConfig(
    {
      publicUrl: apiListener.url,
      authUrl: authListener.url,
      authInternalUrl: options.authInternalUrlIsTheApi ? apiListener.url : authListener.url,
    },
    options.wrongIntrospectionSecret
      ? {
          ...authConfig.secrets,
          introspectionClientSecrets: [`${authConfig.secrets.introspectionClientSecrets[0]}-not`],
        }
      : authConfig.secrets,
    {
      ...(options.apiRateLimit ? { apiRateLimit: options.apiRateLimit } : {}),
      ...(options.invalidTokenLimit ? { invalidTokenLimit: options.invalidTokenLimit } : {}),
    },
  );
  const api = await createContactsApi({ db: database.db, config, logger });
  apiListener.server.removeAllListeners('request');
  apiListener.server.on('request', api.app.callback());
  await waitFor(() => api.revocations.listening);

  return {
    db: database.db,
    auth,
    api,
    apiUrl: apiListener.url,
    authUrl: authListener.url,
    apiConfig: config,
    async stopAuth() {
      if (!authUp) return;
      authUp = false;
      await stop(authListener.server);
    },
    async close() {
      await stop(apiListener.server);
      await api.close();
      if (authUp) await stop(authListener.server);
      await auth.close();
      await database.drop();
    },
  };
}

export async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
