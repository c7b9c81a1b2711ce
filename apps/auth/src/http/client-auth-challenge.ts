import type { Context, Next } from 'koa';
import type { KoaContextWithOIDC } from 'oidc-provider';

/** The endpoints where a client authenticates (client_secret_basic, client_secret_post or none). */
const CLIENT_AUTHENTICATING_ROUTES: ReadonlySet<string> = new Set(['token', 'introspection', 'revocation']);

/** How oidc-provider refuses a request that names no client at all (its shared/client_auth.js). */
const NO_CLIENT_AUTHENTICATION = 'no client authentication mechanism provided';

/**
 * How it refuses client credentials in an Authorization header it cannot use (not Basic, not
 * base64 of `id:secret`, badly percent-encoded, an empty secret): the client tried to
 * authenticate there, and failed.
 */
const FAILED_HEADER_AUTHENTICATION: ReadonlySet<string> = new Set([
  'invalid authorization header value format',
  'client_id and client_secret in the authorization header are not properly encoded',
  'client_secret must be provided in the Authorization header',
]);

interface OAuthErrorBody {
  error?: unknown;
  error_description?: unknown;
}

/**
 * A request without any client authentication, or with client credentials in an Authorization
 * header that cannot be used, is `invalid_client`, 401 (RFC 6749 §5.2: "no client authentication
 * included", and a client that "attempted to authenticate via the Authorization request header
 * field" MUST get 401), where oidc-provider answers `invalid_request`, 400.
 *
 * A 401 carries a WWW-Authenticate challenge (RFC 9110 §15.5.2). oidc-provider adds one to an
 * `invalid_client` answer only when the client sent an Authorization header (Basic, its
 * shared/client_auth.js); credentials sent in the form (client_secret_post), or a client id alone,
 * got a 401 without any. This adds the same challenge there, in the Basic scheme: it tells the
 * client that Basic works, and a library that reads the challenge (oauth4webapi) finds the
 * same `error` whichever way the client authenticated.
 *
 * `provider.use()` middleware; it looks only at answers that are already 401, after `next()`.
 */
export function clientAuthChallenge(issuer: string) {
  return async function challengeFailedClientAuthentication(ctx: Context, next: Next) {
    await next();
    const route = (ctx as Partial<KoaContextWithOIDC>).oidc?.route;
    if (route === undefined || !CLIENT_AUTHENTICATING_ROUTES.has(route)) return;
    let answer = ctx.body as OAuthErrorBody | undefined;
    const description = typeof answer?.error_description === 'string' ? answer.error_description : '';
    if (
      ctx.status === 400 &&
      answer?.error === 'invalid_request' &&
      (description === NO_CLIENT_AUTHENTICATION || FAILED_HEADER_AUTHENTICATION.has(description))
    ) {
      answer = { error: 'invalid_client', error_description: description };
      ctx.body = answer;
      ctx.status = 401;
    }
    if (ctx.status !== 401 || ctx.response.get('WWW-Authenticate')) return;
    ctx.set(
      'WWW-Authenticate',
      basicChallenge({
        realm: issuer,
        error: typeof answer?.error === 'string' ? answer.error : 'invalid_client',
        error_description: typeof answer?.error_description === 'string' ? answer.error_description : undefined,
      }),
    );
  };
}

/** `Basic realm="…", error="…"`: quoted strings (RFC 9110 §5.6.4), as oidc-provider writes its own. */
function basicChallenge(parameters: Record<string, string | undefined>): string {
  const quoted = Object.entries(parameters)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `${name}="${value.replace(/[\\"]/g, '\\$&')}"`);
  return `Basic ${quoted.join(', ')}`;
}
