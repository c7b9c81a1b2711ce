import type { Context, Next } from 'koa';
import { SUPPORTED_SCOPES } from '../provider/scopes';

/**
 * oidc-provider lists only its own (OpenID) scopes in the metadata documents; the contacts API's
 * scopes are resource scopes, so they are written in here (RFC 8414 `scopes_supported`).
 */
export async function discoveryScopes(ctx: Context, next: Next) {
  await next();
  if (!ctx.path.startsWith('/.well-known/') || ctx.status !== 200 || typeof ctx.body !== 'object' || ctx.body === null)
    return;
  (ctx.body as Record<string, unknown>).scopes_supported = SUPPORTED_SCOPES;
}
