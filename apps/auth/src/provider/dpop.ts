import type { Configuration } from 'oidc-provider';

/**
 * DPoP (RFC 9449) at the token endpoint. A client that sends a `DPoP` proof gets access tokens
 * of type DPoP bound to its key (`cnf.jkt`, reported by introspection); a public client also
 * gets refresh tokens bound to that key. A client registered with `dpop_bound_access_tokens`
 * gets nothing without a proof. Clients that send no proof keep getting Bearer tokens.
 *
 * Proof algorithms: oidc-provider's default (ES256, Ed25519, EdDSA). No server nonces: the proof's `iat` must be within oidc-provider's window and its `jti` is
 * remembered (ReplayDetection, in oidc_models, shared by every replica) so it cannot be replayed.
 */
export const dpopFeature: NonNullable<NonNullable<Configuration['features']>['dPoP']> = {
  enabled: true,
  allowReplay: false,
};
