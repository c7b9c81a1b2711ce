/**
 * The authorization server's side of the API documentation: the scopes, the OAuth 2.0
 * security scheme, and a static description of the token, introspection and revocation
 * endpoints (served by apps/auth, under the same public URL). Kept apart from the generated
 * contacts operations because these routes belong to oidc-provider, not to the contacts API.
 */
import { MAX_OAUTH_BODY_BYTES } from './limits';

type JsonObject = Record<string, unknown>;

/** Every scope a token can carry, with what it allows. */
export const CONTACT_SCOPES = {
  'contacts:read': "Read the member's contacts, groups and business categories.",
  'contacts:write':
    "Create, change and delete the member's contacts (writes need this, not read). A write's answer is the contact written, so a token with this scope alone sees the contacts it writes; reading by GET needs contacts:read.",
  '*': 'Everything (the original service’s scope): read and write.',
} as const;

export type ContactScope = keyof typeof CONTACT_SCOPES;

/**
 * The one resource server (RFC 8707) that tokens are issued for, and the audience (`aud`) of
 * every token. A request without a `resource` parameter is for it, so plain OAuth 2.0 clients need
 * not know it; one that sends `resource` must send this value (another is `invalid_target`).
 */
export const CONTACTS_API_RESOURCE = 'urn:member-contacts:contacts-api';

const resourceParameter = {
  type: 'string',
  enum: [CONTACTS_API_RESOURCE],
  description: `RFC 8707 resource indicator; optional, and ${CONTACTS_API_RESOURCE} (the contacts API, the audience of every token) is the only value: another is invalid_target.`,
};

/**
 * The scopes each scope includes: `*` is everything, so a token or grant of `*` holds
 * contacts:read and contacts:write. The contacts API checks access by it; the authorization
 * server narrows a `*` grant at refresh by it.
 */
export const INCLUDED_SCOPES: Readonly<Record<string, readonly string[]>> = {
  '*': ['contacts:read', 'contacts:write'],
};

/** Whether the scopes held grant `wanted`, by name or because one of them includes it. */
export function scopesGrant(held: readonly string[], wanted: string): boolean {
  return held.some((scope) => scope === wanted || INCLUDED_SCOPES[scope]?.includes(wanted) === true);
}

/** The scopes named, and every scope one of them includes. */
export function withIncludedScopes(scopes: Iterable<string>): Set<string> {
  const all = new Set<string>();
  for (const scope of scopes) {
    all.add(scope);
    for (const included of INCLUDED_SCOPES[scope] ?? []) all.add(included);
  }
  return all;
}

/** The scopes without those another of them already includes (`* contacts:read` is `*`). */
export function withoutIncludedScopes(scopes: readonly string[]): string[] {
  const included = new Set(scopes.flatMap((scope) => INCLUDED_SCOPES[scope] ?? []));
  return scopes.filter((scope) => !included.has(scope));
}

/** The two ways to present a token: an OAuth access token, or a personal access token (both Bearer). */
export function oauthSecuritySchemes(publicUrl: string): JsonObject {
  const base = publicUrl.replace(/\/$/, '');
  return {
    oauth2: {
      type: 'oauth2',
      description: 'OAuth 2.0 authorization code flow; public clients must use PKCE (S256).',
      flows: {
        authorizationCode: {
          authorizationUrl: `${base}/oauth/authorize`,
          tokenUrl: `${base}/oauth/token`,
          refreshUrl: `${base}/oauth/token`,
          scopes: { ...CONTACT_SCOPES },
        },
      },
    },
    bearer: {
      type: 'http',
      scheme: 'bearer',
      description: 'A personal access token (created at /settings/tokens or with the CLI), or an OAuth access token.',
    },
    // RFC 9449: `Authorization: DPoP <token>` plus a `DPoP` proof header.
    dpop: { type: 'http', scheme: 'dpop', description: 'A DPoP-bound access token with a DPoP proof (RFC 9449).' },
  };
}

/** The security requirement of an operation that needs `scope`: either scheme, with that scope. */
export function requiresScope(scope: ContactScope): JsonObject[] {
  return [{ oauth2: [scope] }, { bearer: [scope] }, { dpop: [scope] }];
}

export const OAUTH_TAG = {
  name: 'OAuth 2.0',
  description: 'The authorization server: tokens, introspection (RFC 7662) and revocation (RFC 7009).',
};

const oauthError = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'string',
      description:
        "RFC 6749 §5.2 code: invalid_request, invalid_client, invalid_grant, unauthorized_client, unsupported_grant_type or invalid_scope; RFC 8707's invalid_target; RFC 9449's invalid_dpop_proof; or this server's rate_limited (429) and temporarily_unavailable (503).",
    },
    error_description: { type: 'string' },
  },
};

/** An RFC 6749-style form body, the only encoding oidc-provider reads on introspection and revocation. */
const form = (schema: JsonObject) => ({
  required: true,
  content: { 'application/x-www-form-urlencoded': { schema } },
});

/** The token endpoint also reads the same parameters as a JSON object (the auth server translates it). */
const formOrJson = (schema: JsonObject) => ({
  required: true,
  content: {
    'application/x-www-form-urlencoded': { schema },
    'application/json': { schema },
  },
});

const clientCredentials = {
  client_id: { type: 'string', description: 'With client_secret_post, or for a public client.' },
  client_secret: {
    type: 'string',
    description: 'client_secret_post; or send both in an HTTP Basic Authorization header (client_secret_basic).',
  },
};

/** What introspection (RFC 7662 §2.1) and revocation (RFC 7009 §2.1) are asked with. */
const tokenRequest = form({
  type: 'object',
  required: ['token'],
  properties: {
    token: { type: 'string' },
    token_type_hint: { type: 'string', enum: ['access_token', 'refresh_token'] },
    ...clientCredentials,
  },
});

const errorAnswer = (description: string, headers?: JsonObject) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema: oauthError } },
});

const seconds = (description: string) => ({ description, schema: { type: 'integer', minimum: 0 } });

/** What every one of the three endpoints may also answer, besides its own. */
const sharedAnswers = {
  '401': errorAnswer('invalid_client: unknown client or wrong secret.', {
    'WWW-Authenticate': {
      description: 'A Basic challenge naming the error (RFC 9110 §11.6.1), however the credentials were sent.',
      schema: { type: 'string' },
    },
  }),
  '413': errorAnswer(`invalid_request: the request body is larger than ${MAX_OAUTH_BODY_BYTES / 1024} KiB.`),
  '503': errorAnswer('temporarily_unavailable: the database cannot be reached; try again after Retry-After.', {
    'Retry-After': seconds('Seconds to wait (5).'),
  }),
};

const tokenRateLimited = errorAnswer(
  'rate_limited: too many token requests for this client from this address in the window (TOKEN_RATE_LIMIT, README: Rate limits); try again after Retry-After.',
  {
    'Retry-After': seconds('Seconds until the window resets.'),
    'RateLimit-Limit': seconds('Requests allowed per window.'),
    'RateLimit-Remaining': seconds('Requests left in this window (0).'),
    'RateLimit-Reset': seconds('Seconds until the window resets.'),
  },
);

const clientAuthFailuresLimited = errorAnswer(
  'rate_limited: too many failed client authentications (401 invalid_client) for this client from this address, or from this address over all clients, in the window (TOKEN_RATE_LIMIT, README: Rate limits); the right credentials too until it ends. Successful requests are not counted.',
  { 'Retry-After': seconds('Seconds until the window resets.') },
);

/** The token, introspection and revocation endpoints, as OpenAPI path items. */
export function oauthPaths(): Record<string, JsonObject> {
  const tags = [OAUTH_TAG.name];
  return {
    '/oauth/token': {
      post: {
        tags,
        operationId: 'oauthToken',
        summary: 'Exchange an authorization code, or a refresh token, for tokens',
        security: [],
        parameters: [
          {
            name: 'DPoP',
            in: 'header',
            required: false,
            description:
              'A DPoP proof for this request (RFC 9449 §4: htm POST, htu this endpoint): the tokens issued are bound to its key (token_type DPoP). Required for an application registered as DPoP-bound, and for refreshing a DPoP-bound public client’s refresh token (with the same key).',
            schema: { type: 'string' },
          },
        ],
        requestBody: formOrJson({
          type: 'object',
          required: ['grant_type'],
          properties: {
            grant_type: { type: 'string', enum: ['authorization_code', 'refresh_token'] },
            code: { type: 'string', description: 'authorization_code: the code (single-use, 60 s).' },
            redirect_uri: {
              type: 'string',
              description: 'authorization_code: exactly as in the authorization request.',
            },
            code_verifier: { type: 'string', description: 'PKCE (S256); required for public clients.' },
            refresh_token: {
              type: 'string',
              description: 'refresh_token: the current refresh token (spent by this request).',
            },
            scope: { type: 'string', description: 'refresh_token: the scopes wanted (at most those granted).' },
            resource: resourceParameter,
            ...clientCredentials,
          },
        }),
        responses: {
          '200': {
            description: 'New tokens. Every refresh also returns a new refresh token.',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['access_token', 'token_type', 'expires_in'],
                  properties: {
                    access_token: { type: 'string' },
                    token_type: {
                      type: 'string',
                      enum: ['Bearer', 'DPoP'],
                      description: 'DPoP when the request carried a DPoP proof (RFC 9449), else Bearer.',
                    },
                    expires_in: { type: 'integer', description: 'Seconds (14 days by default).' },
                    refresh_token: { type: 'string' },
                    scope: { type: 'string' },
                  },
                },
              },
            },
          },
          '400': errorAnswer(
            'invalid_request, invalid_grant (unknown, expired or spent code or refresh token — a spent refresh token revokes the whole grant), unsupported_grant_type, invalid_scope, invalid_target (a resource other than the contacts API) or invalid_dpop_proof (a DPoP proof that is malformed, not for this request, too old, or missing where the application or the refresh token needs one).',
          ),
          ...sharedAnswers,
          '429': tokenRateLimited,
        },
      },
    },
    '/oauth/introspect': {
      post: {
        tags,
        operationId: 'oauthIntrospect',
        summary: 'Whether a token is active, and whose it is (RFC 7662)',
        description:
          'Only the contacts API may ask about any token; another client gets {"active": false} except for its own tokens.',
        security: [],
        requestBody: tokenRequest,
        responses: {
          '200': {
            description: "The token's state; only `active` when it is not active.",
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['active'],
                  properties: {
                    active: { type: 'boolean' },
                    sub: { type: 'string', description: 'The member id.' },
                    client_id: { type: 'string' },
                    scope: { type: 'string' },
                    exp: { type: 'integer' },
                    iat: { type: 'integer' },
                    token_type: { type: 'string' },
                    aud: { type: 'string', description: `The token's audience: ${CONTACTS_API_RESOURCE}.` },
                    iss: { type: 'string', description: 'The issuer (PUBLIC_URL).' },
                    jti: { type: 'string' },
                    cnf: {
                      type: 'object',
                      description: 'A DPoP-bound token only (RFC 9449 §6.2).',
                      properties: {
                        jkt: { type: 'string', description: 'SHA-256 JWK thumbprint of the proof key it is bound to.' },
                      },
                    },
                    personal_access_token: { type: 'boolean' },
                  },
                },
              },
            },
          },
          '400': errorAnswer('invalid_request: no token.'),
          ...sharedAnswers,
          '429': clientAuthFailuresLimited,
        },
      },
    },
    '/oauth/revoke': {
      post: {
        tags,
        operationId: 'oauthRevoke',
        summary: 'Revoke a token (RFC 7009); revoking one revokes every token of its grant',
        security: [],
        requestBody: tokenRequest,
        responses: {
          '200': { description: 'Revoked, or there was nothing to revoke (RFC 7009 §2.2).' },
          '400': errorAnswer('invalid_request: no token.'),
          ...sharedAnswers,
          '429': clientAuthFailuresLimited,
        },
      },
    },
  };
}
