import {
  integerFrom,
  type JanitorSettings,
  janitorSettingsFrom,
  loadSharedSecrets,
  type RateLimit,
  rateLimitFrom,
  type ServiceRuntime,
  serviceRuntimeFrom,
  syncTokenTtlFrom,
  urlFrom,
} from '@contacts/config';
import { dataDirectory } from '@contacts/db';

export interface ContactsApiConfig {
  port: number;
  /** Public base URL of the API (used in image_url and links). */
  publicUrl: string;
  /** Public URL of the authorization server (the issuer). */
  authUrl: string;
  /** Where this process reaches the authorization server's introspection endpoint. */
  authInternalUrl: string;
  introspectionClientId: string;
  introspectionClientSecret: string;
  /** Requests per token (API_RATE_LIMIT per API_RATE_LIMIT_WINDOW seconds); undefined: no limit. */
  apiRateLimit?: RateLimit | undefined;
  /** How long a change-feed sync token stays usable (SYNC_TOKEN_TTL, seconds; default 30 days). */
  syncTokenTtlSeconds?: number;
  /** When this process runs the janitor (JANITOR_INTERVAL, AUDIT_RETENTION_DAYS); undefined: never. */
  janitor?: JanitorSettings | undefined;
  /** DB_POOL_MAX, MIGRATE_ON_START, SHUTDOWN_TIMEOUT, for main.ts (tests build a server without it). */
  runtime?: ServiceRuntime | undefined;
}

/**
 * Every setting of the contacts API, read and validated once, here: a malformed value throws a
 * ConfigError naming the variable and the form it expects (main.ts prints it and exits).
 */
export async function loadContactsApiConfig(
  env: NodeJS.ProcessEnv,
  defaults: { port: number },
): Promise<ContactsApiConfig> {
  const port = integerFrom(env, 'PORT', defaults.port);
  const publicUrl = urlFrom(env, 'PUBLIC_URL', `http://localhost:${port}`);
  const authUrl = urlFrom(env, 'AUTH_URL', publicUrl);
  const secrets = await loadSharedSecrets(env, dataDirectory(env), [
    'introspectionClientId',
    'introspectionClientSecret',
  ]);
  return {
    port,
    publicUrl,
    authUrl,
    authInternalUrl: urlFrom(env, 'AUTH_INTERNAL_URL', authUrl),
    introspectionClientId: secrets.introspectionClientId,
    introspectionClientSecret: secrets.introspectionClientSecret,
    apiRateLimit: rateLimitFrom(env, 'API_RATE_LIMIT', 1200),
    syncTokenTtlSeconds: syncTokenTtlFrom(env),
    janitor: janitorSettingsFrom(env),
    runtime: serviceRuntimeFrom(env),
  };
}

/**
 * Under NODE_ENV=test every route's answer is checked against its declared contract
 * (http/guard.ts): a success that breaks its declaration fails the test as a 500.
 */
export function checksResponseContracts(env: NodeJS.ProcessEnv): boolean {
  return env.NODE_ENV === 'test';
}
