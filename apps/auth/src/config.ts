import {
  integerFrom,
  type JanitorSettings,
  janitorSettingsFrom,
  LONGEST_LIFETIME_SECONDS,
  loadSharedSecrets,
  portFrom,
  publicUrlFrom,
  type RateLimit,
  rateLimitFrom,
  type ServiceRuntime,
  type SharedSecrets,
  serviceRuntimeFrom,
} from '@contacts/config';
import { dataDirectory } from '@contacts/db';

export interface AuthConfig {
  /** The public base URL, which is also the OAuth issuer. */
  issuer: string;
  port: number;
  secrets: SharedSecrets;
  /** Seconds. */
  accessTokenTtl: number;
  refreshTokenTtl: number;
  /** How long one consent (a Grant) lasts without use; each refresh extends nothing beyond it. */
  grantTtl: number;
  /** Whether cookies must be Secure (true whenever the issuer is https). */
  secureCookies: boolean;
  /** Token requests per client (TOKEN_RATE_LIMIT per TOKEN_RATE_LIMIT_WINDOW seconds); undefined: no limit. */
  tokenRateLimit?: RateLimit | undefined;
  /** Seconds a rotated refresh token is still accepted (REFRESH_TOKEN_REUSE_GRACE_SECONDS; 0: never). */
  refreshTokenReuseGrace?: number | undefined;
  /** When this process runs the janitor (JANITOR_INTERVAL, AUDIT_RETENTION_DAYS); undefined: never. */
  janitor?: JanitorSettings | undefined;
  /** The database settings, MIGRATE_ON_START, SHUTDOWN_TIMEOUT, for main.ts (tests build a server without it). */
  runtime?: ServiceRuntime | undefined;
}

const DAY = 24 * 60 * 60;

/**
 * Every setting of the authorization server, read and validated once, here: a malformed value
 * throws a ConfigError naming the variable and the form it expects (main.ts prints it and exits).
 */
export async function loadAuthConfig(env: NodeJS.ProcessEnv, defaults: { port: number }): Promise<AuthConfig> {
  const port = portFrom(env, 'PORT', defaults.port);
  const issuer = publicUrlFrom(env, port);
  const settings = {
    issuer,
    port,
    accessTokenTtl: integerFrom(env, 'ACCESS_TOKEN_TTL', 14 * DAY, 1, LONGEST_LIFETIME_SECONDS),
    refreshTokenTtl: integerFrom(env, 'REFRESH_TOKEN_TTL', 30 * DAY, 1, LONGEST_LIFETIME_SECONDS),
    grantTtl: integerFrom(env, 'GRANT_TTL', 365 * DAY, 1, LONGEST_LIFETIME_SECONDS),
    secureCookies: issuer.startsWith('https://'),
    tokenRateLimit: rateLimitFrom(env, 'TOKEN_RATE_LIMIT', 300),
    // A grace of more than a minute is no longer a retry window but a second valid token (RFC 9700 §4.14.2).
    refreshTokenReuseGrace: integerFrom(env, 'REFRESH_TOKEN_REUSE_GRACE_SECONDS', 0, 0, 60),
    janitor: janitorSettingsFrom(env),
    runtime: serviceRuntimeFrom(env),
  };
  // Last: in development it writes DATA_DIR/secrets.json, which a typo above should not cause.
  return { ...settings, secrets: await loadSharedSecrets(env, dataDirectory(env)) };
}
