import { createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject, sign, verify } from 'node:crypto';
import type { JWK } from 'jose';
import { ConfigError } from './env';

/**
 * JWKS, the authorization server's signing keys: checked here, in full, as oidc-provider would
 * check them. Its own refusals are stack traces that print the offending key, private part
 * included; here each problem is one line naming the key by its place, never its value.
 */
export function jwksFrom(env: NodeJS.ProcessEnv): { keys: JWK[] } | undefined {
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
    const problem = signingKeyProblem((key ?? {}) as Record<string, unknown>, identities);
    if (problem) throw refuse(`key ${index + 1}${problem}`);
  });
  return { keys: keys as JWK[] };
}

const SIGNING_KEY_TYPES = ['EC', 'OKP', 'RSA'];
/** RSA keys shorter than this are refused (NIST SP 800-131A: 2048 bits at least). */
const MIN_RSA_BITS = 2048;
/** The members of a JWK that name its public key, which the private part must match. */
const PUBLIC_MEMBERS: Record<string, string[]> = { EC: ['x', 'y'], OKP: ['x'], RSA: ['n', 'e'] };

/**
 * What is wrong with one key of the set, as the rest of a sentence that begins "key N"; undefined
 * when it can sign. `identities` holds the keys seen before it (each needs its own kid).
 */
function signingKeyProblem(jwk: Record<string, unknown>, identities: Set<string>): string | undefined {
  const { kty, d, kid, use, alg } = jwk;
  if (typeof kty !== 'string') return ' has no "kty"';
  // Only OKP, EC and RSA keys sign; a private one carries "d" (a public key cannot sign).
  if (!SIGNING_KEY_TYPES.includes(kty)) return ` is of type "${kty}"; signing keys are ${SIGNING_KEY_TYPES.join(', ')}`;
  if (typeof d !== 'string') return ' is not a private key';
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: jwk as JsonWebKey, format: 'jwk' });
  } catch {
    return ` is not a valid ${kty} private key (check "crv", "x", "y", "d", …)`;
  }
  const algorithms = signingAlgorithms(kty, jwk.crv);
  if (algorithms.length === 0) return ` (${kty}, curve "${String(jwk.crv)}") cannot sign; use P-256 or Ed25519`;
  if (use !== undefined && use !== 'sig') return ` is for "use": "${String(use)}"; these keys sign ("sig")`;
  if (alg !== undefined && !algorithms.includes(String(alg))) {
    return ` says "alg": "${String(alg)}"; a key of its kind signs with ${algorithms.join(' or ')}`;
  }
  // Its public members must be the private key's, or tokens would verify against another key.
  const published = Object.fromEntries((PUBLIC_MEMBERS[kty] ?? []).map((member) => [member, jwk[member]]));
  if (!signsAsPublished(privateKey, { kty, crv: jwk.crv, ...published })) {
    return `'s public members (${Object.keys(published).join(', ')}) do not belong to its "d"`;
  }
  const bits = privateKey.asymmetricKeyDetails?.modulusLength ?? 0;
  if (kty === 'RSA' && bits < MIN_RSA_BITS)
    return ` is an RSA key of ${bits} bits; at least ${MIN_RSA_BITS} are needed`;
  // Tokens name their key by kid: the same one twice, or one key twice without any (oidc-provider
  // then derives the kid from the public members), is a rotation's slip.
  if (kid !== undefined && (typeof kid !== 'string' || kid === ''))
    return ' has a "kid" that is not a non-empty string';
  const identity =
    typeof kid === 'string' ? `kid ${kid}` : `key ${JSON.stringify({ kty, crv: jwk.crv, ...published })}`;
  if (identities.has(identity)) {
    return typeof kid === 'string'
      ? ` has the "kid" of an earlier key ("${kid}"); each key needs its own`
      : ' is an earlier key again';
  }
  identities.add(identity);
  return undefined;
}

/** The JWS algorithms a key can sign with, as oidc-provider matches them (kty, crv). */
function signingAlgorithms(kty: string, crv: unknown): string[] {
  if (kty === 'RSA') return ['PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512'];
  if (kty === 'EC') return { 'P-256': ['ES256'], 'P-384': ['ES384'], 'P-521': ['ES512'] }[String(crv)] ?? [];
  return crv === 'Ed25519' ? ['EdDSA', 'Ed25519'] : [];
}

/** Whether a signature made with the private key verifies with the public members as published. */
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
