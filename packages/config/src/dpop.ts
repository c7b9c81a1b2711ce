import { errors } from 'jose';

/**
 * The algorithms a DPoP proof (RFC 9449) may be signed with, on both sides: the authorization
 * server binds tokens only to keys proven with one of these (its metadata's
 * `dpop_signing_alg_values_supported`, oidc-provider's `enabledJWA.dPoPSigningAlgValues`), and the
 * contacts API accepts proofs of these alone and names them in its challenges' `algs`. A key of any
 * other algorithm could never hold a token, so the API offering more would only mislead clients.
 * Asymmetric only: `none` and the HMAC family can never prove possession of a key.
 */
export const DPOP_SIGNING_ALGORITHMS = ['ES256', 'Ed25519', 'EdDSA'] as const;

/** jose's codes for the two proof mistakes dpopProofMistake names (jose is both services' verifier). */
const ALG_NOT_ALLOWED = errors.JOSEAlgNotAllowed.code;
const CLAIM_CHECK_FAILED = errors.JWTClaimValidationFailed.code;

/**
 * What a client did wrong, when jose's `jwtVerify` refused its DPoP proof for one of the two
 * mistakes a developer can fix from a sentence: an `alg` not in DPOP_SIGNING_ALGORITHMS (an RSA
 * key, say), or a `typ` other than `dpop+jwt`. Undefined for anything else (a malformed proof, a
 * signature that does not verify), which each service words itself. The words are ASCII without
 * quotes, so they fit an `error_description` in a WWW-Authenticate header too (RFC 6749 §5.2),
 * and never repeat what the proof said.
 */
export function dpopProofMistake(error: unknown): string | undefined {
  const { code, claim } = (error ?? {}) as { code?: unknown; claim?: unknown };
  if (code === ALG_NOT_ALLOWED) {
    return `the DPoP proof is signed with an algorithm this server does not accept: sign it with ${DPOP_SIGNING_ALGORITHMS.join(', ')} (dpop_signing_alg_values_supported)`;
  }
  if (code === CLAIM_CHECK_FAILED && claim === 'typ') return 'the DPoP proof must have the header typ dpop+jwt';
  return undefined;
}
