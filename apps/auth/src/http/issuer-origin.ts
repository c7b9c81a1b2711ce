import type { Context, Next } from 'koa';

/**
 * oidc-provider writes its URLs (the metadata's endpoints, the interaction and resume redirects,
 * the `htu` a DPoP proof must name) from the request's origin, whose host the app takes from Host
 * or, behind the gateway, X-Forwarded-Host. Any caller can send those: a
 * metadata document fetched with `Host: attacker.example` named the attacker's token endpoint,
 * which a cache that does not key on Host could hand to every client (their codes and secrets
 * then sent there). This service has one public origin, the issuer's (PUBLIC_URL), so every
 * request the provider answers is taken as addressed to its host. `provider.use()` middleware, the outermost.
 */
export function issuerOrigin(issuer: string) {
  const { host } = new URL(issuer);
  return function answerAsIssuer(ctx: Context, next: Next) {
    const headers = ctx.req.headers;
    headers.host = host;
    // Read before Host when the app trusts its proxy (Koa's `proxy`), so made the issuer's too.
    headers['x-forwarded-host'] = host;
    // The scheme stays the request's: the gateway sets X-Forwarded-Proto itself, and an https
    // issuer answers no plain-http request (plain-http-refusal.ts).
    return next();
  };
}
