import type { Logger } from '@contacts/config';
import {
  createServiceMetrics,
  type HealthAnswer,
  healthEndpoints,
  janitorMetrics,
  logApplicationErrors,
  requestLogging,
  SERVICE_NAMES,
} from '@contacts/config';
import type { Database, NotificationListener } from '@contacts/db';
import { databaseProblem, startJanitor } from '@contacts/db';
import { Router } from '@koa/router';
import Koa, { type Middleware } from 'koa';
import compose from 'koa-compose';
import { Authenticator } from './auth/authenticator';
import { introspectionClient, introspectionCredentialsCheck } from './auth/introspection';
import { type Access, requireAccess, withRequiredScope } from './auth/middleware';
import { outageReport } from './auth/outage-report';
import { listenForRevocations } from './auth/revocation-listener';
import { senderConstraint } from './auth/sender-constraint';
import { TokenCache } from './auth/token-cache';
import { tokenCacheMetrics } from './auth/token-cache-metrics';
import type { ContactsApiConfig } from './config';
import { allowedMethods } from './http/allowed-methods';
import { readBearer } from './http/bearer';
import { apiCors } from './http/cors';
import { errorEnvelopeOf, errorRenderer } from './http/errors';
import { invalidTokenLimit } from './http/invalid-token-limit';
import { noSniff } from './http/no-sniff';
import { type RegisteredRoute, registeredRoutes } from './http/openapi-paths';
import { asRateLimit, perTokenRateLimit } from './http/rate-limit';
import { uploadFolder } from './http/upload-spool';
import type { RouteDependencies } from './routes/context';
import { openApiRoutes } from './routes/openapi';
import { v3Api, v3HeadersOf } from './routes/v3';
import { contactRoutesV3 } from './routes/v3/contacts';
import { batchRoutes } from './routes/v4/batch';
import { businessCategoryRoutes } from './routes/v4/business-categories';
import { changeRoutes } from './routes/v4/changes';
import { contactRoutes } from './routes/v4/contacts';
import { groupRoutes } from './routes/v4/groups';
import { imageRoutes } from './routes/v4/images';
import { vCardRoutes } from './routes/v4/vcard';

export interface ContactsApiDependencies {
  db: Database;
  config: ContactsApiConfig;
  logger: Logger;
}

export interface ContactsApi {
  app: Koa;
  /** Every API operation the routers answer, with its guard's contract (the OpenAPI document's source). */
  routes: RegisteredRoute[];
  /** The revocation LISTEN connection (tests wait for it, readiness reports it). */
  revocations: NotificationListener;
  close(): Promise<void>;
}

export async function createContactsApi({ db, config, logger }: ContactsApiDependencies): Promise<ContactsApi> {
  // Made now, so that a temporary folder that cannot be written refuses start rather than every upload.
  await uploadFolder();
  const app = new Koa({ proxy: true });
  const cache = new TokenCache();
  const revocations = listenForRevocations(db, cache, logger);
  const introspect = introspectionClient({
    authInternalUrl: config.authInternalUrl,
    clientId: config.introspectionClientId,
    clientSecret: config.introspectionClientSecret,
  });
  const authenticator = new Authenticator(introspect, cache, revocations);
  const credentialsProblem = introspectionCredentialsCheck(introspect);

  const metrics = createServiceMetrics({ service: SERVICE_NAMES.contactsApi, pool: () => db.client.pool });
  tokenCacheMetrics(metrics.registry, cache);
  const janitor = startJanitor(db, config.janitor, logger);
  janitorMetrics(metrics.registry, janitor);
  logApplicationErrors(app, logger);
  app.use(requestLogging(logger));
  app.use(noSniff);
  app.use(metrics.middleware);
  app.use(
    healthEndpoints(SERVICE_NAMES.contactsApi, {
      database: () => databaseProblem(db),
      authorization_server: () => authServerProblem(config.authInternalUrl, credentialsProblem),
    }),
  );

  // [security] DPoP proofs and the personal-token checksum, checked with every token.
  const constraint = senderConstraint(db, config.publicUrl);
  // [security] Invalid tokens per caller address, counted around the token check of every route.
  const invalidTokens = config.invalidTokenLimit
    ? invalidTokenLimit(db, config.invalidTokenLimit, authenticator, logger)
    : undefined;
  // One report for the process: an outage is said once, whichever routes meet it.
  const reportOutage = outageReport(logger);
  const access = (needed: Access): Middleware => {
    const check = requireAccess(authenticator, needed, reportOutage, constraint);
    return withRequiredScope(invalidTokens ? asRateLimit(compose([invalidTokens, check])) : check, needed);
  };
  const dependencies: RouteDependencies = {
    db,
    publicUrl: config.publicUrl,
    read: access('read'),
    write: access('write'),
    rateLimit: config.apiRateLimit ? perTokenRateLimit(db, config.apiRateLimit, logger) : noRateLimit,
  };
  const v3Router = contactRoutesV3(dependencies);
  const v4Routers = [
    // Before contactRoutes: /v4/contacts/changes, /batch, /export and /import also match
    // /v4/contacts/:id (see fixedPathsFirst; registeredRoutes refuses the other order).
    batchRoutes(dependencies),
    vCardRoutes(dependencies),
    changeRoutes(dependencies, {
      syncTokenTtlSeconds: config.syncTokenTtlSeconds,
    }),
    contactRoutes(dependencies),
    imageRoutes(dependencies),
    groupRoutes(dependencies),
    businessCategoryRoutes(dependencies),
  ];
  const routes = registeredRoutes([v3Router, ...v4Routers]);

  // Cross-origin calls from browser apps (the API and /openapi.json): preflights answered here,
  // before any token check or rate limit; every answer below, errors included, carries CORS headers.
  // v3's preflights carry its deprecation headers, as all its other answers do (v3Api).
  app.use(apiCors(routes, { pathHeaders: v3HeadersOf(config.publicUrl) }));
  app.use(errorRenderer(logger, errorEnvelopeOf));
  app.use(readBearer());
  app.use(v3Api(v3Router, { publicUrl: config.publicUrl, logger }));
  const root = new Router();
  for (const router of [
    openApiRoutes({ publicUrl: config.publicUrl, authUrl: config.authUrl, routes }),
    ...v4Routers,
  ]) {
    root.use(router.routes());
  }
  app.use(root.routes());
  app.use(allowedMethods(root));

  logger.debug({ authUrl: config.authUrl }, 'contacts api ready');
  return {
    app,
    routes,
    revocations,
    close: async () => {
      await revocations.close();
      await janitor.stop();
    },
  };
}

const noRateLimit: Middleware = (_ctx, next) => next();

/**
 * Readiness: the authorization server answers its health check (else no new token can be
 * checked), it is the authorization server (AUTH_INTERNAL_URL pointing at this API, or at
 * anything else that answers /healthz, would otherwise look ready and refuse every token), and it
 * accepts this API's introspection credentials: a replica with the wrong ones (a typo, or the old
 * secret during a rotation) answers 503 to every token it has not cached, so it leaves the
 * rotation rather than look ready.
 */
async function authServerProblem(
  authInternalUrl: string,
  credentialsProblem: () => Promise<string | undefined>,
): Promise<string | undefined> {
  return (await reachabilityProblem(authInternalUrl)) ?? (await credentialsProblem());
}

async function reachabilityProblem(authInternalUrl: string): Promise<string | undefined> {
  let answer: Partial<HealthAnswer>;
  try {
    const response = await fetch(`${authInternalUrl}/healthz`, { signal: AbortSignal.timeout(2_000) });
    if (!response.ok) {
      await response.body?.cancel();
      return `authorization server unhealthy (HTTP ${response.status})`;
    }
    answer = ((await response.json().catch(() => ({}))) ?? {}) as Partial<HealthAnswer>;
  } catch {
    return 'authorization server unreachable';
  }
  if (answer.service === SERVICE_NAMES.auth) return undefined;
  const reached = typeof answer.service === 'string' ? `the ${answer.service} service` : 'something else';
  return `AUTH_INTERNAL_URL (${authInternalUrl}) reaches ${reached}, not the authorization server`;
}
