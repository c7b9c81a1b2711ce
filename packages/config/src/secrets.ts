import {
  createPrivateKey,
  createPublicKey,
  type JsonWebKey,
  type KeyObject,
  randomBytes,
  sign,
  verify,
} from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { ConfigError, EnvironmentError, nodeEnvironmentFrom } from './env';

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
    cookieKeys: cookieKeysFrom(env),
    jwks: jwksFrom(env),
    introspectionClientId: env.INTROSPECTION_CLIENT_ID || undefined,
    introspectionClientSecret: introspectionSecretFrom(env),
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
      introspectionClientSecret: fromEnv.introspectionClientSecret ?? '',
    };
  }
  const generated = await developmentSecrets(dataDir);
  return {
    cookieKeys: fromEnv.cookieKeys ?? generated.cookieKeys,
    jwks: fromEnv.jwks ?? generated.jwks,
    introspectionClientId: fromEnv.introspectionClientId ?? generated.introspectionClientId,
    introspectionClientSecret: fromEnv.introspectionClientSecret ?? generated.introspectionClientSecret,
  };
}

function cookieKeysFrom(env: NodeJS.ProcessEnv): string[] | undefined {
  const keys = (env.COOKIE_KEYS ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter(Boolean);
  if (keys.length === 0) return undefined;
  const short = keys.find((key) => key.length < MIN_SECRET_LENGTH);
  if (short !== undefined) {
    throw new ConfigError(
      `COOKIE_KEYS: each key must be at least ${MIN_SECRET_LENGTH} characters (one has ${short.length}); ` +
        `generate one with ${GENERATE}`,
    );
  }
  return keys;
}

function introspectionSecretFrom(env: NodeJS.ProcessEnv): string | undefined {
  const secret = env.INTROSPECTION_CLIENT_SECRET;
  if (!secret) return undefined;
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new ConfigError(
      `INTROSPECTION_CLIENT_SECRET must be at least ${MIN_SECRET_LENGTH} characters (it has ${secret.length}); ` +
        `generate one with ${GENERATE}`,
    );
  }
  return secret;
}

/**
 * JWKS: checked here, in full, as oidc-provider would check it: its own refusals are stack traces
 * that print the offending key, private part included.
 */
const SIGNING_KEY_TYPES = ['EC', 'OKP', 'RSA'];
/** RSA keys shorter than this are refused (NIST SP 800-131A: 2048 bits at least). */
const MIN_RSA_BITS = 2048;

/** The JWS algorithms a key can sign with, as oidc-provider matches them (kty, crv). */
function signingAlgorithms(key: { kty: string; crv?: unknown }): string[] {
  if (key.kty === 'RSA') return ['PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512'];
  if (key.kty === 'EC') return { 'P-256': ['ES256'], 'P-384': ['ES384'], 'P-521': ['ES512'] }[String(key.crv)] ?? [];
  return key.crv === 'Ed25519' ? ['EdDSA', 'Ed25519'] : [];
}

/** The members of a JWK that name its public key, which the private part must match. */
const PUBLIC_MEMBERS: Record<string, string[]> = { EC: ['x', 'y'], OKP: ['x'], RSA: ['n', 'e'] };

function signsAsPublished(privateKey: KeyObject, publicJwk: Record<string, unknown>): boolean {
  const probe = Buffer.from('JWKS check');
  const digest = privateKey.asymmetricKeyType === 'ed25519' ? null : 'sha256';
  try {
    const publicKey = createPublicKey({ key: publicJwk as JsonWebKey, format: 'jwk' });
    return verify(digest, probe, publicKey, sign(digest, probe, privateKey));
  } catch {
    return false;
  }
}

function jwksFrom(env: NodeJS.ProcessEnv): { keys: JWK[] } | undefined {
  const raw = env.JWKS;
  if (!raw) return undefined;
  const refuse = (why: string) =>
    new ConfigError(`JWKS must be a JSON Web Key Set of private keys ({"keys":[{"kty":…,"d":…}]}): ${why}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw refuse('it is not JSON');
  }
  const keys = (parsed as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) throw refuse('it has no "keys" array');
  if (keys.length === 0) throw refuse('it has no keys');
  const identities = new Set<string>();
  keys.forEach((key: unknown, index) => {
    const jwk = (key ?? {}) as Record<string, unknown>;
    const { kty, d, kid, use, alg } = jwk;
    const which = `key ${index + 1}`;
    if (typeof kty !== 'string') throw refuse(`${which} has no "kty"`);
    // Only OKP, EC and RSA keys sign; a private one carries "d" (a public key cannot sign).
    if (!SIGNING_KEY_TYPES.includes(kty)) {
      throw refuse(`${which} is of type "${kty}"; signing keys are ${SIGNING_KEY_TYPES.join(', ')}`);
    }
    if (typeof d !== 'string') throw refuse(`${which} is not a private key`);
    // The key itself (curve, coordinates, …): a broken one stopped oidc-provider with a stack trace.
    let privateKey: KeyObject;
    try {
      privateKey = createPrivateKey({ key: key as JsonWebKey, format: 'jwk' });
    } catch {
      throw refuse(`${which} is not a valid ${kty} private key (check "crv", "x", "y", "d", …)`);
    }
    const algorithms = signingAlgorithms({ kty, crv: jwk.crv });
    if (algorithms.length === 0) {
      throw refuse(`${which} (${kty}, curve "${String(jwk.crv)}") cannot sign; use P-256 or Ed25519`);
    }
    if (use !== undefined && use !== 'sig') {
      throw refuse(`${which} is for "use": "${String(use)}"; these keys sign ("sig")`);
    }
    if (alg !== undefined && !algorithms.includes(String(alg))) {
      throw refuse(`${which} says "alg": "${String(alg)}"; a key of its kind signs with ${algorithms.join(' or ')}`);
    }
    // Its public members must be the private key's, or tokens would verify against another key:
    // a signature made with "d" must verify with the public members as published.
    const published = Object.fromEntries((PUBLIC_MEMBERS[kty] ?? []).map((member) => [member, jwk[member]]));
    if (!signsAsPublished(privateKey, { kty, crv: jwk.crv, ...published })) {
      throw refuse(`${which}'s public members (${Object.keys(published).join(', ')}) do not belong to its "d"`);
    }
    // Each key needs its own "kid" (a rotation's slip: the same one twice, or one key twice without
    // any, whose kid oidc-provider derives from the public members): tokens name the key by it.
    if (kid !== undefined && (typeof kid !== 'string' || kid === '')) {
      throw refuse(`${which} has a "kid" that is not a non-empty string`);
    }
    const identity =
      typeof kid === 'string' ? `kid ${kid}` : `key ${JSON.stringify({ kty, crv: jwk.crv, ...published })}`;
    if (identities.has(identity)) {
      throw refuse(
        typeof kid === 'string'
          ? `${which} has the "kid" of an earlier key ("${kid}"); each key needs its own`
          : `${which} is an earlier key again`,
      );
    }
    identities.add(identity);
    const bits = privateKey.asymmetricKeyDetails?.modulusLength;
    if (kty === 'RSA' && (bits ?? 0) < MIN_RSA_BITS)
      throw refuse(`${which} is an RSA key of ${bits} bits; at least ${MIN_RSA_BITS} are needed`);
  });
  return { keys: keys as JWK[] };
}

async function developmentSecrets(dataDir: string): Promise<GeneratedSecrets> {
  const file = path.join(dataDir, 'secrets.json');
  const kept = readKept(file);
  if (kept) return kept;
  const secrets = await generateSecrets();
  try {
    mkdirSync(dataDir, { recursive: true });
    // 'wx': when two processes start at once, the first one's secrets win.
    writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600, flag: 'wx' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const theirs = code === 'EEXIST' ? readKept(file) : undefined;
    if (theirs) return theirs;
    throw new EnvironmentError(
      `the development secrets could not be kept in ${file} (${code ?? (error as Error).message}). Check that this ` +
        'folder is writable (DATA_DIR chooses another), or set COOKIE_KEYS, JWKS, INTROSPECTION_CLIENT_ID and ' +
        'INTROSPECTION_CLIENT_SECRET.',
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
  try {
    return JSON.parse(text) as GeneratedSecrets;
  } catch {
    throw new EnvironmentError(
      `${file} is not JSON. Delete it to have new development secrets generated (members then sign in again).`,
    );
  }
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

/** Secrets as the environment variables that carry them (what a deployment sets: .env.example). */
export function secretsEnvironment(secrets: SharedSecrets): Record<string, string> {
  return {
    COOKIE_KEYS: secrets.cookieKeys.join(','),
    JWKS: JSON.stringify(secrets.jwks),
    INTROSPECTION_CLIENT_ID: secrets.introspectionClientId,
    INTROSPECTION_CLIENT_SECRET: secrets.introspectionClientSecret,
  };
}
