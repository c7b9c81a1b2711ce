import type { Context, Next } from 'koa';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { SUPPORTED_SCOPES } from '../provider/scopes';

/**
 * oidc-provider lists only its own (OpenID) scopes in the metadata documents; the contacts API's
 * scopes are resource scopes, so they are written in here (RFC 8414 `scopes_supported`).
 */
export async function discoveryScopes(ctx: Context, next: Next) {
  await next();
  if ((ctx as Partial<KoaContextWithOIDC>).oidc?.route !== 'discovery') return;
  if (ctx.status !== 200 || typeof ctx.body !== 'object' || ctx.body === null) return;
  (ctx.body as Record<string, unknown>).scopes_supported = SUPPORTED_SCOPES;
}
