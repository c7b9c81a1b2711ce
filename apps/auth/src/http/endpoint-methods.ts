import type { Context, Next } from 'koa';
import type Provider from 'oidc-provider';
import { METADATA_PATHS, OAUTH_ROUTE_NAMES, type OAuthRoute } from '../provider/configuration';

/**
 * The methods each of oidc-provider's enabled endpoints routes (its lib/helpers/initialize_app.js),
 * by route name. OPTIONS is its CORS preflight, answered only to a request with an Origin. The
 * authorization endpoint takes POST only with `enableHttpPostMethods`, which this server leaves off.
 */
const METHODS_BY_ROUTE = {
  authorization: ['GET', 'HEAD'],
  token: ['POST', 'OPTIONS'],
  introspection: ['POST', 'OPTIONS'],
  revocation: ['POST', 'OPTIONS'],
  jwks: ['GET', 'HEAD', 'OPTIONS'],
  discovery: ['GET', 'HEAD', 'OPTIONS'],
} as const satisfies Record<OAuthRoute | 'discovery', readonly string[]>;

/**
 * oidc-provider's router lets a request through unanswered when its path is an endpoint's but its
 * method is not (GET /oauth/token), and Koa then says 404. It is 405 (RFC 9110 §15.5.6) with the
 * endpoint's Allow header, and an OAuth error object so that a client library shows the reason;
 * an OPTIONS without Origin, which the provider's CORS route leaves unanswered, is that header.
 * `provider.use()` middleware: after `next()`, `ctx.oidc` exists only when a route matched.
 */
export function endpointMethods(provider: Provider) {
  const allowedAt = new Map<string, readonly string[]>(
    Object.values(METADATA_PATHS).map((path) => [path, METHODS_BY_ROUTE.discovery]),
  );
  for (const route of OAUTH_ROUTE_NAMES) {
    allowedAt.set(provider.pathFor(route), METHODS_BY_ROUTE[route]);
  }
  return async function refuseOtherMethods(ctx: Context, next: Next) {
    await next();
    if (ctx.status !== 404 || ctx.body != null) return;
    const allowed = allowedAt.get(ctx.path);
    if (allowed) answerOtherMethod(ctx, allowed);
  };
}

/**
 * The answer of an OAuth endpoint (oidc-provider's, or one of this server's beside them) to a
 * method it does not route: a plain OPTIONS (no Origin; a CORS preflight is the provider's) asks
 * what it allows (RFC 9110 §9.3.7), 204 with Allow; any other is 405 with Allow and an OAuth
 * error object naming the methods it takes.
 */
export function answerOtherMethod(ctx: Context, allowed: readonly string[]): void {
  ctx.set('Allow', allowed.join(', '));
  if (ctx.method === 'OPTIONS') {
    ctx.status = 204;
    return;
  }
  ctx.status = 405;
  ctx.body = {
    error: 'invalid_request',
    error_description: `${ctx.path} accepts ${allowed.filter((method) => method !== 'HEAD' && method !== 'OPTIONS').join(' and ')} only`,
  };
}
