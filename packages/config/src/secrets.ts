import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { exportJWK, generateKeyPair, type JWK } from 'jose';

/**
 * Everything that replicas must share. In production each value comes from the environment;
 * for local development (no NODE_ENV=production) missing ones are generated once and kept in
 * DATA_DIR/secrets.json so that sessions and tokens survive restarts.
 */
export interface SharedSecrets {
  /** Keys signing the auth server's cookies; the first signs, all verify (rotate by prepending). */
  cookieKeys: string[];
  /** Private JWK set of the authorization server (published at /oauth/jwks). */
  jwks: { keys: JWK[] };
  /** The contacts API's own client credentials at the introspection endpoint. */
  introspectionClientId: string;
  introspectionClientSecret: string;
}

type GeneratedSecrets = SharedSecrets;

export const SHARED_SECRET_NAMES: ReadonlyArray<keyof SharedSecrets> = [
  'cookieKeys',
  'jwks',
  'introspectionClientId',
  'introspectionClientSecret',
];

const ENV_NAMES: Record<keyof SharedSecrets, string> = {
  cookieKeys: 'COOKIE_KEYS',
  jwks: 'JWKS',
  introspectionClientId: 'INTROSPECTION_CLIENT_ID',
  introspectionClientSecret: 'INTROSPECTION_CLIENT_SECRET',
};

/**
 * `needed`: the secrets this service uses. In production only those must be set; the others
 * come back empty (the contacts API, for one, never sees the signing keys or cookie keys).
 */
export async function loadSharedSecrets(
  env: NodeJS.ProcessEnv,
  dataDir: string,
  needed: ReadonlyArray<keyof SharedSecrets> = SHARED_SECRET_NAMES,
): Promise<SharedSecrets> {
  const fromEnv = {
    cookieKeys: env.COOKIE_KEYS?.split(',')
      .map((key) => key.trim())
      .filter(Boolean),
    jwks: env.JWKS ? (JSON.parse(env.JWKS) as { keys: JWK[] }) : undefined,
    introspectionClientId: env.INTROSPECTION_CLIENT_ID,
    introspectionClientSecret: env.INTROSPECTION_CLIENT_SECRET,
  };
  const missing = Object.entries(fromEnv)
    .filter(([, value]) => value === undefined || (Array.isArray(value) && value.length === 0))
    .map(([key]) => key);
  if (missing.length === 0) return fromEnv as SharedSecrets;
  if (env.NODE_ENV === 'production') {
    const missingNeeded = needed.filter((key) => missing.includes(key));
    if (missingNeeded.length > 0) {
      throw new Error(`${missingNeeded.map((key) => ENV_NAMES[key]).join(', ')} must be set in production`);
    }
    return {
      cookieKeys: fromEnv.cookieKeys ?? [],
      jwks: fromEnv.jwks ?? { keys: [] },
      introspectionClientId: fromEnv.introspectionClientId ?? '',
      introspectionClientSecret: fromEnv.introspectionClientSecret ?? '',
    };
  }
  const generated = await developmentSecrets(dataDir);
  return {
    cookieKeys: fromEnv.cookieKeys?.length ? fromEnv.cookieKeys : generated.cookieKeys,
    jwks: fromEnv.jwks ?? generated.jwks,
    introspectionClientId: fromEnv.introspectionClientId ?? generated.introspectionClientId,
    introspectionClientSecret: fromEnv.introspectionClientSecret ?? generated.introspectionClientSecret,
  };
}

async function developmentSecrets(dataDir: string): Promise<GeneratedSecrets> {
  const file = path.join(dataDir, 'secrets.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as GeneratedSecrets;
  const secrets = await generateSecrets();
  mkdirSync(dataDir, { recursive: true });
  try {
    // 'wx': when two processes start at once, the first one's secrets win.
    writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600, flag: 'wx' });
  } catch {
    return JSON.parse(readFileSync(file, 'utf8')) as GeneratedSecrets;
  }
  return secrets;
}

export async function generateSecrets(): Promise<SharedSecrets> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  return {
    cookieKeys: [randomBytes(32).toString('base64url')],
    jwks: { keys: [{ ...jwk, alg: 'ES256', use: 'sig', kid: randomBytes(8).toString('hex') }] },
    introspectionClientId: 'contacts-api',
    introspectionClientSecret: randomBytes(32).toString('base64url'),
  };
}
