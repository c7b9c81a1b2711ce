import {
  createServiceMetrics,
  healthEndpoints,
  janitorMetrics,
  type Logger,
  logApplicationErrors,
  requestLogging,
  SERVICE_NAMES,
  unknownMethods,
} from '@contacts/config';
import { type Database, databaseProblem, startJanitor } from '@contacts/db';
import Koa from 'koa';
import mount from 'koa-mount';
import type Provider from 'oidc-provider';
import type { Configuration } from 'oidc-provider';
import type { AuthConfig } from './config';
import { csrfSeed } from './http/csrf';
import { databaseOutage } from './http/database-outage';
import { errorAnswers } from './http/error-answers';
import { refusePlainHttp } from './http/plain-http-refusal';
import { securityHeaders } from './http/security-headers';
import { auditTrail } from './lib/audit';
import { memberSessions } from './lib/member-sessions';
import { type PersonalTokens, personalTokens } from './lib/personal-tokens';
import { signInGuard } from './lib/sign-in-guard';
import { accessTokenMemory } from './provider/access-token-memory';
import { accessTokenMemoryMetrics } from './provider/access-token-memory-metrics';
import { clientDirectory } from './provider/client-directory';
import { auditRefreshTokenReuse } from './provider/events';
import { createProvider } from './provider/index';
import { routeLibraryNotices } from './provider/library-notices';
import { useProviderMiddleware } from './provider/middleware';
import { accountRoutes } from './routes/account';
import { assets } from './routes/assets';
import { interactionRoutes } from './routes/interaction';
import { revokeLeakedRoutes } from './routes/revoke-leaked';
import { settingsRoutes } from './routes/settings';
import { signInRoutes } from './routes/sign-in';
import type { AuthServices } from './services';

export interface AuthServerDependencies {
  db: Database;
  config: AuthConfig;
  logger: Logger;
  /** Adjusts oidc-provider's configuration (the benchmarks compare it with an in-memory adapter). */
  configureProvider?: (configuration: Configuration) => Configuration;
}

export interface AuthServer {
  app: Koa;
  provider: Provider;
  personalTokens: PersonalTokens;
  close(): Promise<void>;
}

/**
 * The authorization server: oidc-provider (mounted at the root; its endpoints are under /oauth
 * and /.well-known) and around it the member-facing pages: sign-in, consent, developer settings.
 */
export async function createAuthServer({
  db,
  config,
  logger,
  configureProvider,
}: AuthServerDependencies): Promise<AuthServer> {
  const clients = clientDirectory(db, logger);
  const accessTokens = accessTokenMemory(db, logger);
  const sessions = memberSessions(db, config.secureCookies);
  routeLibraryNotices(logger);
  const provider = createProvider(
    { db, config, logger, clients, accessTokens, memberSessions: sessions },
    configureProvider,
  );
  const tokens = personalTokens(provider, db);
  const audit = auditTrail(db, logger);
  auditRefreshTokenReuse(provider, audit);
  useProviderMiddleware(provider, { db, config, logger, audit, clients });
  const services: AuthServices = {
    db,
    provider,
    personalTokens: tokens,
    audit,
    signInGuard: signInGuard(db, config.secrets.cookieKeys[0] ?? ''),
    logger,
    clients,
    memberSessions: sessions,
    csrf: csrfSeed(config.secrets.cookieKeys, config.secureCookies, config.issuer),
  };

  // The provider runs inside this app's context, so both must sign cookies with the same keys.
  const app = new Koa({ proxy: true, keys: config.secrets.cookieKeys });
  logApplicationErrors(app, logger);
  app.use(requestLogging(logger));
  const metrics = createServiceMetrics({ service: SERVICE_NAMES.auth, pool: () => db.client.pool });
  const janitor = startJanitor(db, config.janitor, logger);
  janitorMetrics(metrics.registry, janitor);
  accessTokenMemoryMetrics(metrics.registry, accessTokens);
  app.use(metrics.middleware);
  app.use(healthEndpoints(SERVICE_NAMES.auth, { database: () => databaseProblem(db) }));
  app.use(refusePlainHttp(config.secureCookies, logger));
  app.use(securityHeaders);
  app.use(errorAnswers);
  app.use(unknownMethods);
  app.use(databaseOutage(provider, logger));
  app.use(assets);
  for (const router of [
    signInRoutes(services),
    settingsRoutes(services),
    accountRoutes(services),
    interactionRoutes(services),
    // Not an oidc-provider endpoint: a route of its own beside the provider's.
    revokeLeakedRoutes(services),
  ]) {
    app.use(router.routes());
    app.use(router.allowedMethods());
  }
  app.use(mount(provider));

  return {
    app,
    provider,
    personalTokens: tokens,
    close: () => Promise.all([janitor.stop(), clients.close(), accessTokens.close()]).then(() => undefined),
  };
}
