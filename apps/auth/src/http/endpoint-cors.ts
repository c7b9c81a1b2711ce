import type { Context, Next } from 'koa';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { METADATA_PATHS } from '../provider/configuration';

/**
 * What a browser app may read of the token, revocation and introspection endpoints' answers
 * besides the CORS-safelisted headers: oidc-provider's own exposed header (`WWW-Authenticate`,
 * the 401 challenge) and the ones this server adds in front of it, the token rate limit's
 * `RateLimit-*` and the `Retry-After` of a 429 or 503.
 */
const CLIENT_ENDPOINT_EXPOSED = [
  'WWW-Authenticate',
  'Retry-After',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
];

/**
 * The CORS headers of oidc-provider's endpoints on every answer, not only on those its routes make.
 *
 * oidc-provider adds them inside each endpoint's route (its lib/shared/cors.js, after the route
 * matched): `Vary: Origin`, `Access-Control-Allow-Origin` naming the request's Origin (`*`
 * without one) and, on the client endpoints, `Access-Control-Expose-Headers`. The answers this
 * server makes before the router (provider.use() middleware: an unreadable or oversized body,
 * a NUL, the token rate limit's 429, a method an endpoint does not take) never reach that
 * route, so a browser app got "Failed to fetch" in their place and could not read the error,
 * nor when to retry. This middleware sits outside all of them, so whatever answers before the
 * router, now or later, is given the headers the provider's CORS layer would have given.
 *
 * [security] Where a route did match, the provider's CORS layer decided, and its decision stands:
 * it removes Allow-Origin when the client the request authenticated may not be called from that
 * origin (clientBasedCORS in provider/configuration.ts), and nothing here puts it back; it is
 * only told to expose this server's headers too. An answer made before the router names no
 * authenticated client and carries nothing of one, like the provider's own answers to a request
 * it refuses before authenticating the client, which it lets any origin read.
 *
 * `provider.use()` middleware, right after canonicalEndpointPaths (an endpoint is known by its
 * one documented path) and before every middleware that may answer in the router's place.
 */
export function corsOnEveryAnswer(provider: Provider) {
  const exposedAt = new Map<string, readonly string[]>([
    [provider.pathFor('token'), CLIENT_ENDPOINT_EXPOSED],
    [provider.pathFor('introspection'), CLIENT_ENDPOINT_EXPOSED],
    [provider.pathFor('revocation'), CLIENT_ENDPOINT_EXPOSED],
    // Public documents: the provider exposes nothing of their answers.
    [provider.pathFor('jwks'), []],
    ...Object.values(METADATA_PATHS).map((path): [string, readonly string[]] => [path, []]),
  ]);
  return async function addCorsHeaders(ctx: Context, next: Next) {
    const exposed = exposedAt.get(ctx.path);
    if (!exposed) return next();
    try {
      await next();
    } finally {
      // After next(), ctx.oidc exists only when one of the provider's routes matched.
      if ((ctx as Partial<KoaContextWithOIDC>).oidc === undefined) allowAsTheProviderDoes(ctx, exposed);
      else exposeToo(ctx, exposed);
    }
  };
}

/** What oidc-provider's CORS layer sets on an answer other than a preflight (its corsMiddleware). */
function allowAsTheProviderDoes(ctx: Context, exposed: readonly string[]): void {
  ctx.vary('Origin');
  ctx.set('Access-Control-Allow-Origin', ctx.get('Origin') || '*');
  if (exposed.length > 0) ctx.set('Access-Control-Expose-Headers', exposed.join(', '));
}

/** Adds this server's headers to those the provider exposed, on an answer it let the origin read. */
function exposeToo(ctx: Context, exposed: readonly string[]): void {
  if (exposed.length === 0 || !ctx.response.get('Access-Control-Allow-Origin')) return;
  const already = ctx.response.get('Access-Control-Expose-Headers');
  const names = already ? already.split(',').map((name) => name.trim()) : [];
  const known = new Set(names.map((name) => name.toLowerCase()));
  for (const name of exposed) if (!known.has(name.toLowerCase())) names.push(name);
  ctx.set('Access-Control-Expose-Headers', names.join(', '));
}
