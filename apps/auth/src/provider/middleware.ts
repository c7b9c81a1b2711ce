import type { Logger } from '@contacts/config';
import type { Database } from '@contacts/db';
import type Provider from 'oidc-provider';
import type { AuthConfig } from '../config';
import { authorizationRateLimit } from '../http/authorization-rate-limit';
import { canonicalEndpointPaths } from '../http/canonical-endpoint-paths';
import { clientAuthChallenge } from '../http/client-auth-challenge';
import { clientAuthFailureLimit } from '../http/client-auth-failure-limit';
import { discoveryMetadata } from '../http/discovery-metadata';
import { dpopProofFailures } from '../http/dpop-proof-failures';
import { corsOnEveryAnswer } from '../http/endpoint-cors';
import { endpointMethods } from '../http/endpoint-methods';
import { recordPersonalTokenUse } from '../http/introspection-usage';
import { issuerOrigin } from '../http/issuer-origin';
import { refuseNulParameters } from '../http/nul-parameters';
import { providerRequestScope } from '../http/provider-request-scope';
import { refuseRemovedRedirectUri } from '../http/removed-redirect-uri';
import { tokenRateLimit } from '../http/token-rate-limit';
import { tokenJsonBody } from '../http/token-request-body';
import { holdUntrustedErrorRedirects } from '../http/untrusted-error-redirects';
import type { Audit } from '../lib/audit';
import type { ClientDirectory } from './client-directory';
import { renderErrorPage } from './render-error';

/**
 * What this service adds around oidc-provider's own endpoints, through its extension point
 * `provider.use()`: these run inside the provider, around its router. Before `next()` the route
 * is not matched yet, so a request is recognised by `provider.pathFor(name)` (the only spelling
 * left once canonicalEndpointPaths has run); after it, by
 * `ctx.oidc.route` (oidc-provider's route names: 'token', 'introspection', 'discovery', …).
 * Listed outermost first.
 */
export function useProviderMiddleware(
  provider: Provider,
  {
    db,
    config,
    logger,
    audit,
    clients,
  }: { db: Database; config: AuthConfig; logger: Logger; audit: Audit; clients: ClientDirectory },
): void {
  // First: the provider's URLs are the issuer's, whatever Host the request named.
  provider.use(issuerOrigin(provider.issuer));
  // Then: everything below may know an endpoint by its path, in the one spelling documented.
  provider.use(canonicalEndpointPaths(provider));
  // Around everything that may answer before the provider's router, so that those answers carry its CORS headers too.
  provider.use(corsOnEveryAnswer(provider));
  provider.use(endpointMethods(provider));
  provider.use(discoveryMetadata);
  provider.use(clientAuthChallenge(provider.issuer));
  provider.use(dpopProofFailures(provider));
  provider.use(refuseRemovedRedirectUri(provider, clients));
  provider.use(holdUntrustedErrorRedirects(provider, db));
  provider.use(recordPersonalTokenUse(db, audit));
  provider.use(tokenJsonBody(provider));
  // After the JSON body is made parameters (so they are checked too), before anything is counted or stored.
  provider.use(refuseNulParameters(provider, renderErrorPage));
  provider.use(tokenRateLimit(provider, db, config.tokenRateLimit, logger));
  provider.use(clientAuthFailureLimit(provider, db, config.tokenRateLimit, logger));
  provider.use(authorizationRateLimit(provider, db, logger));
  provider.use(providerRequestScope(db));
}
