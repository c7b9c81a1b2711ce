/**
 * The algorithms a DPoP proof (RFC 9449) may be signed with, on both sides: the authorization
 * server binds tokens only to keys proven with one of these (its metadata's
 * `dpop_signing_alg_values_supported`, oidc-provider's `enabledJWA.dPoPSigningAlgValues`), and the
 * contacts API accepts proofs of these alone and names them in its challenges' `algs`. A key of any
 * other algorithm could never hold a token, so the API offering more would only mislead clients.
 * Asymmetric only: `none` and the HMAC family can never prove possession of a key.
 */
export const DPOP_SIGNING_ALGORITHMS = ['ES256', 'Ed25519', 'EdDSA'] as const;
