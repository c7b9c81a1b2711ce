import { DPOP_SIGNING_ALGORITHMS, type Logger } from '@contacts/config';
import { createOidcAdapterClass, type Database, findMemberById, isRowId, takeRememberedAccount } from '@contacts/db';
import { type Configuration, errors, type KoaContextWithOIDC } from 'oidc-provider';
import type { AuthConfig } from '../config';
import { cookieNames } from '../http/cookie-names';
import type { MemberSessions } from '../lib/member-sessions';
import type { AccessTokenMemory } from './access-token-memory';
import type { ClientDirectory } from './client-directory';
import { clientMetadataSource } from './client-metadata';
import { dpopFeature } from './dpop';
import { existingGrantLoader } from './grants';
import { memberSessionPolicy } from './member-session-policy';
import { consumedTwiceError } from './refresh-token-reuse';
import { renderErrorPage } from './render-error';
import { CONTACTS_API_RESOURCE, grantableScopes, SUPPORTED_SCOPES, unknownScopes } from './scopes';

export interface ProviderDependencies {
  db: Database;
  config: AuthConfig;
  logger: Logger;
  clients: ClientDirectory;
  accessTokens: AccessTokenMemory;
  memberSessions: MemberSessions;
}

/** Where oidc-provider answers: the documented contract's paths (the pages link to them too). */
export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  introspection: '/oauth/introspect',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
} as const;

/** oidc-provider's route names of the endpoints above. */
export type OAuthRoute = keyof typeof OAUTH_ROUTES;
export const OAUTH_ROUTE_NAMES = Object.keys(OAUTH_ROUTES) as OAuthRoute[];

/** The metadata documents oidc-provider serves (its route 'discovery'): RFC 8414's and OpenID Connect Discovery's. */
export const METADATA_PATHS = {
  oauth: '/.well-known/oauth-authorization-server',
  openid: '/.well-known/openid-configuration',
} as const;

/**
 * oidc-provider as a plain OAuth 2.0 authorization server for one resource server (the
 * contacts API): authorization code (PKCE optional for confidential clients, required for
 * public ones), refresh tokens rotated on every use, opaque access tokens, introspection and
 * revocation. OpenID Connect extras that nobody here uses are switched off.
 */
export function providerConfiguration({
  db,
  config,
  clients,
  accessTokens,
  memberSessions,
}: ProviderDependencies): Configuration {
  const introspectionClientId = config.secrets.introspectionClientId;
  return {
    adapter: createOidcAdapterClass(db, {
      findClient: clientMetadataSource(clients, config),
      consumedTwiceError,
      refreshTokenReuseGrace: config.refreshTokenReuseGrace,
      accessTokenMemory: accessTokens,
    }),
    jwks: config.secrets.jwks as Configuration['jwks'],
    cookies: {
      keys: config.secrets.cookieKeys,
      // The interaction cookies are scoped to /interaction/<uid> paths, which __Host- forbids.
      names: {
        session: cookieNames(config.secureCookies).providerSession,
        interaction: '_interaction',
        resume: '_interaction_resume',
      },
      long: { httpOnly: true, sameSite: 'lax', secure: config.secureCookies },
      short: { httpOnly: true, sameSite: 'lax', secure: config.secureCookies },
    },
    routes: OAUTH_ROUTES,
    responseTypes: ['code'],
    enabledJWA: { dPoPSigningAlgValues: DPOP_SIGNING_ALGORITHMS }, // shared with the contacts API
    scopes: [],
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
    allowOmittingSingleRegisteredRedirectUri: false,
    // [security] Cross-origin calls to the token, revocation and introspection endpoints only from
    // a public client's own redirect URI origins (a browser-based app); a confidential client's
    // secret never belongs in a browser. (oidc-provider answers every preflight; the request
    // itself is refused with invalid_request from any other origin.)
    clientBasedCORS: (_ctx, origin, client) =>
      origin !== 'null' &&
      client.clientAuthMethod === 'none' &&
      client.redirectUris?.some((uri) => URL.parse(uri)?.origin === origin) === true,
    pkce: { required: (_ctx, client) => client.clientAuthMethod === 'none' },
    async findAccount(_ctx, id) {
      // Read along with the token being used, when there is one (packages/db oidc-adapter.ts).
      const usable = takeRememberedAccount(id) ?? (await memberMayUseTokens(db, id));
      if (!usable) return undefined;
      return { accountId: id, claims: async () => ({ sub: id }) };
    },
    interactions: {
      url: async (_ctx, interaction) => `/interaction/${interaction.uid}`,
      policy: memberSessionPolicy(memberSessions),
    },
    loadExistingGrant: existingGrantLoader(db),
    // Refresh tokens without offline_access, rotated on every use, never tied to the browser session.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    expiresWithSession: async () => false,
    rotateRefreshToken: true,
    ttl: {
      AccessToken: (_ctx, token) => token.resourceServer?.accessTokenTTL ?? config.accessTokenTtl,
      AuthorizationCode: 60,
      RefreshToken: () => config.refreshTokenTtl,
      Grant: () => config.grantTtl,
      Interaction: 60 * 60,
      Session: 14 * 24 * 60 * 60,
    },
    extraTokenClaims: async (_ctx, token) => ({
      personal_access_token: 'gty' in token && token.gty === 'personal_access_token',
    }),
    // Tokens are opaque and no ID token is ever issued; this only satisfies client validation.
    clientDefaults: {
      grant_types: ['authorization_code'],
      response_types: ['code'],
      id_token_signed_response_alg: 'ES256',
    },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      // PAR is good practice, but no client of this service uses it; off until one does.
      pushedAuthorizationRequests: { enabled: false },
      // [security] DPoP (RFC 9449): a proof at the token endpoint binds the tokens to the client's key.
      dPoP: dpopFeature,
      introspection: {
        enabled: true,
        // The contacts API may ask about any token; a confidential client only about its own. A
        // public client proves nothing (its id is public): RFC 7662 §2.1 wants the caller
        // authenticated, so that a token found somewhere cannot be checked here by anyone.
        allowedPolicy: async (_ctx, client, token) =>
          client.clientId === introspectionClientId ||
          (client.clientAuthMethod !== 'none' && client.clientId === token.clientId),
      },
      revocation: {
        enabled: true,
        // RFC 7009 §2.1: a client may revoke only its own tokens; anything else is silently ignored.
        allowedPolicy: async (_ctx, client, token) => client.clientId === token.clientId,
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => CONTACTS_API_RESOURCE,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (ctx: KoaContextWithOIDC, resource) => {
          if (resource !== CONTACTS_API_RESOURCE) throw new errors.InvalidTarget();
          if (ctx.oidc.route === 'authorization') {
            // RFC 6749 §3.3: no default scope here, so a request without one fails as invalid_scope
            // (oidc-provider would otherwise end it as access_denied, as if the member had refused).
            // Nothing grantable is no scope: `offline_access` alone (kept by oidc-provider under
            // prompt=consent) would otherwise show an empty consent page whose Allow is a refusal.
            const requested = ctx.oidc.params?.scope as string | undefined;
            const unknown = unknownScopes(requested);
            if (unknown.length > 0)
              throw new errors.InvalidScope('requested scope is not supported', unknown.join(' '));
            if (grantableScopes(requested).length === 0)
              throw new errors.InvalidScope(`scope is required (one or more of: ${SUPPORTED_SCOPES.join(' ')})`, '');
          }
          return {
            scope: SUPPORTED_SCOPES.join(' '),
            accessTokenFormat: 'opaque',
            accessTokenTTL: config.accessTokenTtl,
          };
        },
      },
    },
    renderError: renderErrorPage,
  };
}

/** An existing member who is not disabled (findMemberById leaves disabled members out). */
async function memberMayUseTokens(db: Database, accountId: string): Promise<boolean> {
  const memberId = Number(accountId);
  return isRowId(memberId) && String(memberId) === accountId && (await findMemberById(db, memberId)) !== undefined;
}
