import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, generateSecrets } from '@contacts/config';
import { createTestDatabase, type TestDatabase } from '@contacts/db/testing';
import type { AuthConfig } from '../../src/config';
import { type AuthServer, createAuthServer } from '../../src/index';

export interface RunningAuthServer {
  baseUrl: string;
  database: TestDatabase;
  auth: AuthServer;
  config: AuthConfig;
  /** What the server logged, one JSON object per line: for asserting that nothing secret leaks. */
  logLines: string[];
  stop(): Promise<void>;
}

/** A real authorization server on a free port, on its own fresh database. */
export async function startAuthServer(overrides: Partial<AuthConfig> = {}): Promise<RunningAuthServer> {
  const database = await createTestDatabase();
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const baseUrl = `http://127.0.0.1:${port}`;
  const config: AuthConfig = {
    issuer: baseUrl,
    port,
    secrets: await generateSecrets(),
    accessTokenTtl: 14 * 24 * 3600,
    refreshTokenTtl: 30 * 24 * 3600,
    grantTtl: 365 * 24 * 3600,
    secureCookies: false,
    // On (generously) in every test, so that every flow goes through its body handling.
    tokenRateLimit: { points: 10_000, duration: 60 },
    ...overrides,
  };
  const logLines: string[] = [];
  const logger = createLogger('auth', { LOG_LEVEL: 'debug' }, { write: (line: string) => logLines.push(line) });
  const auth = await createAuthServer({ db: database.db, config, logger });
  server.on('request', auth.app.callback());
  return {
    baseUrl,
    database,
    auth,
    config,
    logLines,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await auth.close();
      await database.drop();
    },
  };
}
