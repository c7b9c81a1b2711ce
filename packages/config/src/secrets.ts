import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { folderProblem, makeDirectory } from './directories';
import { ConfigError, EnvironmentError, nodeEnvironmentFrom } from './env';
import { jwksFrom } from './signing-keys';

/**
 * Everything that replicas must share. In production each value comes from the environment;
 * for local development (no NODE_ENV=production) missing ones are generated once and kept in
 * DATA_DIR/secrets.json so that sessions and tokens survive restarts.
 */
export interface SharedSecrets {
  /** Keys signing the auth server's cookies; the first signs, all verify. */
  cookieKeys: string[];
  /** Private JWK set of the authorization server (published at /oauth/jwks). */
  jwks: { keys: JWK[] };
  /** The contacts API's own client credentials at the introspection endpoint. */
  introspectionClientId: string;
  /**
   * The first is the one the contacts API presents; the auth server accepts every one, so that
   * a new secret can be rolled out without a gap (the README's three roll-outs, as COOKIE_KEYS).
   */
  introspectionClientSecrets: string[];
}

type GeneratedSecrets = SharedSecrets;

export const SHARED_SECRET_NAMES: ReadonlyArray<keyof SharedSecrets> = [
  'cookieKeys',
  'jwks',
  'introspectionClientId',
  'introspectionClientSecrets',
];

const ENV_NAMES: Record<keyof SharedSecrets, string> = {
  cookieKeys: 'COOKIE_KEYS',
  jwks: 'JWKS',
  introspectionClientId: 'INTROSPECTION_CLIENT_ID',
  introspectionClientSecrets: 'INTROSPECTION_CLIENT_SECRET',
};

/**
 * The shortest cookie key or introspection secret accepted: 32 characters, what
 * `openssl rand -base64 32` (.env.example) gives with room to spare (44), and the generated
 * ones have (43). A key someone typed is guessable; these are the keys to every session.
 */
export const MIN_SECRET_LENGTH = 32;
const GENERATE = '`openssl rand -base64 32`';

/**
 * `needed`: the secrets this service uses. In production only those must be set; the others
 * come back empty (the contacts API, for one, never sees the signing keys or cookie keys).
 * Every value given is checked, in every environment; the messages name the variable, never its value.
 */
export async function loadSharedSecrets(
  env: NodeJS.ProcessEnv,
  dataDir: string,
  needed: ReadonlyArray<keyof SharedSecrets> = SHARED_SECRET_NAMES,
): Promise<SharedSecrets> {
  const fromEnv = {
    cookieKeys: secretListFrom(env, 'COOKIE_KEYS'),
    jwks: jwksFrom(env),
    introspectionClientId: env.INTROSPECTION_CLIENT_ID || undefined,
    introspectionClientSecrets: secretListFrom(env, 'INTROSPECTION_CLIENT_SECRET'),
  };
  const missing = Object.entries(fromEnv)
    .filter(([, value]) => value === undefined)
    .map(([key]) => key);
  if (missing.length === 0) return fromEnv as SharedSecrets;
  if (nodeEnvironmentFrom(env) === 'production') {
    const missingNeeded = needed.filter((key) => missing.includes(key));
    if (missingNeeded.length > 0) {
      throw new ConfigError(`${missingNeeded.map((key) => ENV_NAMES[key]).join(', ')} must be set in production`);
    }
    return {
      cookieKeys: fromEnv.cookieKeys ?? [],
      jwks: fromEnv.jwks ?? { keys: [] },
      introspectionClientId: fromEnv.introspectionClientId ?? '',
      introspectionClientSecrets: fromEnv.introspectionClientSecrets ?? [],
    };
  }
  const generated = await developmentSecrets(dataDir, Boolean(env.DATABASE_URL));
  return {
    cookieKeys: fromEnv.cookieKeys ?? generated.cookieKeys,
    jwks: fromEnv.jwks ?? generated.jwks,
    introspectionClientId: fromEnv.introspectionClientId ?? generated.introspectionClientId,
    introspectionClientSecrets: fromEnv.introspectionClientSecrets ?? generated.introspectionClientSecrets,
  };
}

/** A comma-separated list of secrets, each long enough; undefined when none is set. */
function secretListFrom(env: NodeJS.ProcessEnv, name: string): string[] | undefined {
  const secrets = (env[name] ?? '')
    .split(',')
    .map((secret) => secret.trim())
    .filter(Boolean);
  if (secrets.length === 0) return undefined;
  const short = secrets.find((secret) => secret.length < MIN_SECRET_LENGTH);
  if (short !== undefined) {
    const what = secrets.length === 1 ? `${name} must` : `${name}: each comma-separated value must`;
    const which = secrets.length === 1 ? 'it' : 'one';
    throw new ConfigError(
      `${what} be at least ${MIN_SECRET_LENGTH} characters (${which} has ${short.length}); generate one with ${GENERATE}`,
    );
  }
  return secrets;
}

/** `ownDatabase`: DATABASE_URL is set, so DATA_DIR holds nothing but these secrets. */
async function developmentSecrets(dataDir: string, ownDatabase: boolean): Promise<GeneratedSecrets> {
  const file = path.join(dataDir, 'secrets.json');
  const kept = readKept(file);
  if (kept) return kept;
  const secrets = await generateSecrets();
  try {
    makeDirectory(dataDir);
    // 'wx': when two processes start at once, the first one's secrets win.
    writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600, flag: 'wx' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const theirs = code === 'EEXIST' ? readKept(file) : undefined;
    if (theirs) return theirs;
    throw new EnvironmentError(
      `the development secrets could not be kept in ${file}: ${folderProblem(dataDir, code ?? (error as Error).message)}. ` +
        // Setting the secrets helps only where the data lives elsewhere: the embedded database needs DATA_DIR too.
        (ownDatabase
          ? 'Choose a writable folder with DATA_DIR, or set COOKIE_KEYS, JWKS, INTROSPECTION_CLIENT_ID and ' +
            'INTROSPECTION_CLIENT_SECRET.'
          : 'Choose a writable folder with DATA_DIR (the embedded database keeps its data there too), or set ' +
            'DATABASE_URL to a PostgreSQL server of your own.'),
    );
  }
  return secrets;
}

/** The secrets kept in `file`; undefined when there is none yet. */
function readKept(file: string): GeneratedSecrets | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    // None kept yet (ENOTDIR: DATA_DIR lies under a file; writing it then says so).
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new EnvironmentError(
      `the development secrets in ${file} could not be read (${code}). ` +
        'Check the permissions of DATA_DIR, or choose another with DATA_DIR.',
    );
  }
  let kept: KeptSecrets;
  try {
    kept = JSON.parse(text) as KeptSecrets;
  } catch {
    throw new EnvironmentError(
      `${file} is not JSON. Delete it to have new development secrets generated (members then sign in again).`,
    );
  }
  if (!('introspectionClientSecret' in kept)) return kept;
  // Kept before the introspection secret became a list.
  const { introspectionClientSecret, ...current } = kept;
  return { ...current, introspectionClientSecrets: [introspectionClientSecret] };
}

/** DATA_DIR/secrets.json, as this release writes it or as releases before it did. */
type KeptSecrets =
  | GeneratedSecrets
  | (Omit<GeneratedSecrets, 'introspectionClientSecrets'> & { introspectionClientSecret: string });

export async function generateSecrets(): Promise<SharedSecrets> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  return {
    cookieKeys: [randomBytes(32).toString('base64url')],
    jwks: { keys: [{ ...jwk, alg: 'ES256', use: 'sig', kid: randomBytes(8).toString('hex') }] },
    introspectionClientId: 'contacts-api',
    introspectionClientSecrets: [randomBytes(32).toString('base64url')],
  };
}

/** Secrets as the environment variables that carry them (what a deployment sets: .env.example). */
export function secretsEnvironment(secrets: SharedSecrets): Record<string, string> {
  return {
    COOKIE_KEYS: secrets.cookieKeys.join(','),
    JWKS: JSON.stringify(secrets.jwks),
    INTROSPECTION_CLIENT_ID: secrets.introspectionClientId,
    INTROSPECTION_CLIENT_SECRET: secrets.introspectionClientSecrets.join(','),
  };
}
