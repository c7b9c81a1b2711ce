import type { Context, Next } from 'koa';
import type Provider from 'oidc-provider';
import { type Configuration, errors, type KoaContextWithOIDC } from 'oidc-provider';
import { preReadTokenForm } from './token-request-body';

const NUL = '\u0000';

/**
 * Refuses a request to oidc-provider's endpoints whose query, form body or path holds U+0000,
 * before the provider stores anything of it. PostgreSQL text and jsonb cannot hold a NUL, so
 * any parameter carrying one (state, nonce, login_hint, client_id, …) failed the insert of the
 * interaction, code or token it ends up in, or the lookup of a client, with a 500.
 *
 * Runs as `provider.use()` middleware, that is before the provider's router, where `ctx.oidc`
 * does not exist yet, so the answer is made the way the provider's own error handlers make it:
 * `invalid_request`, 400; a page by `renderError` on the authorization endpoint (nothing is
 * sent back to a redirect URI that has not been checked) and to browsers, JSON otherwise.
 * A form body is read here once (see token-request-body.ts) and left for the provider.
 */
export function refuseNulParameters(provider: Provider, renderError: NonNullable<Configuration['renderError']>) {
  const authorizationPath = provider.pathFor('authorization');
  return async function refuseNul(ctx: Context, next: Next) {
    // In a URL or a urlencoded body a NUL can only be written %00 (or, in a body, sent raw): a
    // look at the bytes, without parsing what the provider parses again (introspection is hot).
    let found = ctx.path.includes('%00') || ctx.querystring.includes('%00');
    if (!found && ctx.method === 'POST') {
      const read = await preReadTokenForm(ctx);
      if (!read) return;
      found = Buffer.isBuffer(read.body) ? read.body.includes('%00') || read.body.includes(0) : hasNul(read.body);
    }
    if (!found) return next();
    const error = new errors.InvalidRequest('parameters must not contain NUL characters');
    const out = { error: error.error, error_description: error.error_description ?? '' };
    ctx.status = error.statusCode;
    ctx.set('Cache-Control', 'no-store');
    const fromBrowser =
      ctx.path === authorizationPath ||
      ctx.path.startsWith(`${authorizationPath}/`) ||
      ctx.accepts('json', 'html') === 'html';
    if (fromBrowser) await renderError(ctx as KoaContextWithOIDC, out, error);
    else ctx.body = out;
  };
}

/** A NUL in any name or value of parameters already parsed (a JSON token body made parameters). */
function hasNul(params: unknown): boolean {
  if (params === null || typeof params !== 'object') return false;
  return Object.entries(params).some(
    ([name, value]) =>
      name.includes(NUL) ||
      (typeof value === 'string' && value.includes(NUL)) ||
      (Array.isArray(value) && value.some((item) => typeof item === 'string' && item.includes(NUL))),
  );
}
