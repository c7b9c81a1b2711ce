import { DPOP_SIGNING_ALGORITHMS } from '@contacts/config';

/**
 * The `WWW-Authenticate` challenges of the API's 401 and 403 answers, in the scheme the request
 * used: `Bearer` (RFC 6750 §3) or `DPoP` (RFC 9449 §7.1, which names the proof algorithms the API
 * takes in `algs`: the authorization server's, packages/config dpop.ts).
 *
 * A request without any authentication information (no Authorization header, or a scheme the API
 * does not take, such as Basic) gets the bare `Bearer realm="contacts"`: RFC 6750 §3.1 says the
 * challenge SHOULD NOT carry an error code then. A malformed, unknown, expired or revoked token gets
 * `invalid_token`, a token without the scope `insufficient_scope` with the `scope` it needs.
 */

/** How a request presented its access token. */
export type TokenScheme = 'Bearer' | 'DPoP';

export type ChallengeError = 'invalid_token' | 'insufficient_scope' | 'invalid_dpop_proof';

export interface ChallengeProblem {
  error: ChallengeError;
  description: string;
  /** The scope the request needs (insufficient_scope). */
  scope?: string;
}

export const REALM = 'contacts';

/** The `algs` of every DPoP challenge. */
export const DPOP_ALGS = DPOP_SIGNING_ALGORITHMS.join(' ');

/**
 * The challenge for a request in `scheme`, with the problem when there is one. Bearer challenges
 * name the realm; DPoP ones end with `algs`.
 */
export function challengeOf(scheme: TokenScheme, problem?: ChallengeProblem): string {
  const parameters = [
    ...(scheme === 'Bearer' ? [`realm="${REALM}"`] : []),
    ...(problem
      ? [
          `error="${problem.error}"`,
          `error_description="${problem.description}"`,
          ...(problem.scope ? [`scope="${problem.scope}"`] : []),
        ]
      : []),
    ...(scheme === 'DPoP' ? [`algs="${DPOP_ALGS}"`] : []),
  ];
  return `${scheme} ${parameters.join(', ')}`;
}
