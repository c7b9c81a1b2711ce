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

/** How the OpenAPI document names these challenges (http/openapi-paths.ts), on v4's and v3's answers alike. */
export const UNAUTHORIZED_CHALLENGE_HEADERS = {
  'WWW-Authenticate': {
    schema: { type: 'string' },
    description: `In the scheme of the request: \`Bearer realm="${REALM}"\` when no token was sent (no error code), \`error="invalid_token"\` for a malformed, unknown, expired or revoked one; for a DPoP request \`DPoP error="invalid_token"\` or \`error="invalid_dpop_proof"\`, with \`algs\`.`,
  },
};
export const SCOPE_CHALLENGE_HEADERS = {
  'WWW-Authenticate': {
    schema: { type: 'string' },
    description: `Only when the token lacks the scope: \`error="insufficient_scope"\` and the \`scope\` needed, in the scheme of the request (\`Bearer realm="${REALM}", …\` or \`DPoP …, algs=…\`).`,
  },
};
