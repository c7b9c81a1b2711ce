import type { Context, Next } from 'koa';
import type Provider from 'oidc-provider';
import { METADATA_PATHS, OAUTH_ROUTE_NAMES } from '../provider/configuration';

/** ASCII letters upper-cased, nothing else: oidc-provider's router never folds a non-ASCII character into ASCII. */
const foldAscii = (path: string) => path.replace(/[a-z]+/g, (letters) => letters.toUpperCase());

/**
 * oidc-provider's router finds an endpoint whatever the case of its path and with one trailing
 * slash more (lib/helpers/router.js): `/OAUTH/TOKEN/` is the token endpoint. What this service
 * adds before the router can only know a request by its path (the token rate limit, the JSON
 * token body, the NUL refusal), so any other spelling would pass them by — unlimited guesses at
 * codes and secrets with a slash added. Every spelling the router accepts is therefore made the
 * one the metadata documents, first of all, and the provider answers as it would have.
 * `provider.use()` middleware, the outermost.
 */
export function canonicalEndpointPaths(provider: Provider) {
  const paths = [...OAUTH_ROUTE_NAMES.map((route) => provider.pathFor(route)), ...Object.values(METADATA_PATHS)];
  const documented = new Set(paths);
  const byFoldedSpelling = new Map(paths.map((path) => [foldAscii(path), path]));
  return function canonicalisePath(ctx: Context, next: Next) {
    const path = ctx.path;
    if (!documented.has(path)) {
      const withoutSlash = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
      const canonical = byFoldedSpelling.get(foldAscii(path)) ?? byFoldedSpelling.get(foldAscii(withoutSlash));
      // Koa keeps the query string when the path is set.
      if (canonical) ctx.path = canonical;
    }
    return next();
  };
}
