import { createHash } from 'node:crypto';
import { DPOP_SIGNING_ALGORITHMS, dpopProofMistake } from '@contacts/config';
import { calculateJwkThumbprint, EmbeddedJWK, type JWK, jwtVerify } from 'jose';

/**
 * Verification of a DPoP proof JWT at a resource server (RFC 9449 §4.3 and §7.1), except the
 * two checks that need more than the request: the key's thumbprint against the token's
 * `cnf.jkt` and the uniqueness of `jti` (see sender-constraint.ts).
 */

/**
 * The authorization server's (packages/config dpop.ts): a token is only ever bound to a key proven
 * with one of these, so a proof of any other algorithm could never match a token. Asymmetric only:
 * `none` and the HMAC family can never prove possession of a key.
 */
const ALGORITHMS = [...DPOP_SIGNING_ALGORITHMS];

/**
 * A proof is accepted when its `iat` is at most this many seconds before or after our clock:
 * long enough for a slow network and a little clock skew, short enough that the table of seen
 * `jti`s stays small. The `jti` is remembered until the proof would be refused for its age.
 */
export const DPOP_PROOF_WINDOW_SECONDS = 60;

/** Larger proofs are refused unread (an RSA-4096 key and the claims fit well within this). */
export const MAX_DPOP_PROOF_LENGTH = 8_192;
const MAX_JTI_LENGTH = 256;

export class InvalidDpopProof extends Error {}

export interface VerifiedDpopProof {
  /** RFC 7638 SHA-256 thumbprint of the proof's key, compared with the token's `cnf.jkt`. */
  jkt: string;
  jti: string;
  iat: number;
}

export interface ExpectedDpopRequest {
  method: string;
  /** The URL the client addressed (the public one, not the one behind the proxy). */
  url: string;
  accessToken: string;
  /** Seconds since the epoch; the clock by default. */
  now?: number;
}

/** `ath`: base64url of the SHA-256 of the access token's ASCII bytes (RFC 9449 §4.2). */
export function accessTokenHash(accessToken: string): string {
  return createHash('sha256').update(accessToken, 'ascii').digest('base64url');
}

/** The URL without query and fragment, scheme and host lower-cased, default port dropped (§4.3 item 9). */
export function normalizedHtu(value: string): string | undefined {
  try {
    const url = new URL(value);
    url.search = '';
    url.hash = '';
    return url.href;
  } catch {
    return undefined;
  }
}

export async function verifyDpopProof(proof: string, expected: ExpectedDpopRequest): Promise<VerifiedDpopProof> {
  if (proof.length > MAX_DPOP_PROOF_LENGTH) throw new InvalidDpopProof('the DPoP proof is too large');
  let payload: Record<string, unknown>;
  let jwk: JWK;
  try {
    const verified = await jwtVerify(proof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: ALGORITHMS });
    payload = verified.payload;
    jwk = verified.protectedHeader.jwk as JWK;
  } catch (error) {
    throw new InvalidDpopProof(
      dpopProofMistake(error) ?? 'the DPoP proof is malformed or its signature does not verify',
    );
  }
  const { jti, htm, htu, iat, ath } = payload;
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > MAX_JTI_LENGTH) {
    throw new InvalidDpopProof('the DPoP proof needs a jti');
  }
  if (htm !== expected.method) throw new InvalidDpopProof('the DPoP proof is for another method');
  const wanted = normalizedHtu(expected.url);
  if (typeof htu !== 'string' || wanted === undefined || normalizedHtu(htu) !== wanted) {
    throw new InvalidDpopProof('the DPoP proof is for another URL');
  }
  const now = expected.now ?? Math.floor(Date.now() / 1000);
  if (typeof iat !== 'number' || !Number.isFinite(iat) || Math.abs(now - iat) > DPOP_PROOF_WINDOW_SECONDS) {
    throw new InvalidDpopProof('the DPoP proof is too old or from the future');
  }
  // Told apart from a wrong hash: a proof without ath is for no token, and the fix is to add it.
  if (ath === undefined) {
    throw new InvalidDpopProof('the DPoP proof has no ath: a proof sent with an access token carries its hash');
  }
  if (ath !== accessTokenHash(expected.accessToken)) {
    throw new InvalidDpopProof('the DPoP proof is for another access token');
  }
  return { jkt: await calculateJwkThumbprint(jwk, 'sha256'), jti, iat };
}
