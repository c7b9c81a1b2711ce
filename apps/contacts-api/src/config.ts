import {
  type JanitorSettings,
  janitorSettingsFrom,
  loadSharedSecrets,
  portFrom,
  publicUrlFrom,
  type RateLimit,
  rateLimitFrom,
  type ServiceRuntime,
  type SharedSecrets,
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
  /**
   * Invalid tokens per caller address (API_INVALID_TOKEN_LIMIT per API_INVALID_TOKEN_LIMIT_WINDOW
   * seconds, see http/invalid-token-limit.ts); undefined: no limit.
   */
  invalidTokenLimit?: RateLimit | undefined;
  /** How long a change-feed sync token stays usable (SYNC_TOKEN_TTL, seconds; default 30 days). */
  syncTokenTtlSeconds: number;
  /** When this process runs the janitor (JANITOR_INTERVAL, AUDIT_RETENTION_DAYS); undefined: never. */
  janitor?: JanitorSettings | undefined;
  /** The database settings, MIGRATE_ON_START, SHUTDOWN_TIMEOUT, for main.ts (tests build a server without it). */
  runtime?: ServiceRuntime | undefined;
}

/**
 * Every setting of the contacts API, read and validated once, here: a malformed value throws a
 * ConfigError naming the variable and the form it expects (main.ts prints it and exits).
 */
export async function loadContactsApiConfig(
  env: NodeJS.ProcessEnv,
  defaults: {
    port: number;
    /** The introspection credentials when the caller has loaded them already (`pnpm start`, with the auth server's). */
    secrets?: Pick<SharedSecrets, 'introspectionClientId' | 'introspectionClientSecrets'>;
  },
): Promise<ContactsApiConfig> {
  const port = portFrom(env, 'PORT', defaults.port);
  const publicUrl = publicUrlFrom(env, port);
  const authUrl = urlFrom(env, 'AUTH_URL', publicUrl);
  const settings = {
    port,
    publicUrl,
    authUrl,
    authInternalUrl: urlFrom(env, 'AUTH_INTERNAL_URL', authUrl),
    apiRateLimit: rateLimitFrom(env, 'API_RATE_LIMIT', 1200),
    invalidTokenLimit: rateLimitFrom(env, 'API_INVALID_TOKEN_LIMIT', 600),
    syncTokenTtlSeconds: syncTokenTtlFrom(env),
    janitor: janitorSettingsFrom(env),
    runtime: serviceRuntimeFrom(env),
  };
  // Last: in development it writes DATA_DIR/secrets.json, which a typo above should not cause.
  const secrets =
    defaults.secrets ??
    (await loadSharedSecrets(env, dataDirectory(env), ['introspectionClientId', 'introspectionClientSecrets']));
  return { ...settings, ...introspectionCredentials(secrets) };
}

/**
 * The credentials the contacts API presents at the introspection endpoint: during a rotation
 * INTROSPECTION_CLIENT_SECRET lists two secrets, and the first is the one to present (the
 * README's Secrets and their rotation); the auth server accepts both.
 */
export function introspectionCredentials(
  secrets: Pick<SharedSecrets, 'introspectionClientId' | 'introspectionClientSecrets'>,
): Pick<ContactsApiConfig, 'introspectionClientId' | 'introspectionClientSecret'> {
  return {
    introspectionClientId: secrets.introspectionClientId,
    introspectionClientSecret: secrets.introspectionClientSecrets[0] ?? '',
  };
}

/**
 * Under NODE_ENV=test every route's answer is checked against its declared contract
 * (http/guard.ts): a success that breaks its declaration fails the test as a 500.
 */
export function checksResponseContracts(env: NodeJS.ProcessEnv): boolean {
  return env.NODE_ENV === 'test';
}
