import { type Database, findLatestGrantId } from '@contacts/db';
import type { Context, Next } from 'koa';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { heldErrorPage } from '../views/error';

/** What the `authorization.error` event tells about the error being answered. */
interface AuthorizationError {
  error: string;
  error_description?: string;
  allow_redirect?: boolean;
}

/**
 * [security] RFC 9700 §4.11.2: the authorization server as an open redirector. Any member can
 * register an application with any https redirect URI, and oidc-provider sends the errors of an
 * authorization request there at once (an unknown scope, a missing PKCE challenge, prompt=none
 * without a session), with no sign-in and no page: a link to this server bounced its visitor to
 * whatever site the application names. The BCP asks the server to redirect automatically only to
 * a redirect URI it trusts, and otherwise to inform the member and let them decide.
 *
 * Trusted here: a redirect URI on this server's own origin (the API reference's client, /docs),
 * and an application that the member signed in to this browser has authorized and not withdrawn:
 * an unexpired grant of the member's in the database (the browser session's own record of its
 * grants outlives a consent withdrawn in settings, which deletes the grants, not the references). Their errors go back to them as
 * RFC 6749 §4.1.2.1 says. Any other error answer of the authorization endpoint is replaced by a
 * page (400) that names the application and the error, with a link back to it for a query or
 * fragment answer: the member follows it or not. Answers after the member's sign-in or consent
 * (route `resume`: the member's own Deny, say) are the member's decision and are left alone.
 *
 * The error is recognised through oidc-provider's `authorization.error` event (emitted on the
 * request's context while the answer is built) and the answer replaced after `next()`: an answer
 * without an error costs a WeakMap lookup.
 */
export function holdUntrustedErrorRedirects(provider: Provider, db: Database) {
  const ownOrigin = new URL(provider.issuer).origin;
  const errors = new WeakMap<Context, AuthorizationError>();
  // The event names are oidc-provider's; the same listener signature as dpop-proof-failures.ts.
  const on = provider.on.bind(provider) as (event: string, listener: (...args: never[]) => void) => void;
  on('authorization.error', (ctx: KoaContextWithOIDC, error: AuthorizationError) => errors.set(ctx, error));

  return async function holdErrorRedirectsToUntrustedApplications(ctx: Context, next: Next) {
    await next();
    const oidc = (ctx as Partial<KoaContextWithOIDC>).oidc;
    if (oidc?.route !== 'authorization') return;
    const error = errors.get(ctx);
    const client = oidc.client;
    if (error === undefined || client === undefined) return;
    const redirectUri = redirectUriAnswered(ctx, oidc, error);
    if (redirectUri === undefined || URL.parse(redirectUri)?.origin === ownOrigin) return;
    const memberId = oidc.session?.accountId;
    if (memberId && (await findLatestGrantId(db, memberId, client.clientId)) !== undefined) return;
    const location = ctx.response.get('Location');
    ctx.remove('Location');
    ctx.status = 400;
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-store');
    ctx.body = heldErrorPage({
      applicationName: client.clientName ?? client.clientId,
      error: error.error,
      errorDescription: error.error_description,
      // A form_post answer is a form to submit: the member is sent back to start again instead.
      continueTo: location === '' ? undefined : location,
    });
  };
}

/**
 * The redirect URI oidc-provider answered the error to (in any response mode), or undefined when
 * it showed its error page instead: the same test as its lib/shared/authorization_error_handler.js
 * (a known client, which the caller has, a redirect_uri it accepted, an error that allows redirecting).
 */
function redirectUriAnswered(
  ctx: Context,
  oidc: KoaContextWithOIDC['oidc'],
  error: AuthorizationError,
): string | undefined {
  if (error.allow_redirect === false) return undefined;
  const { redirect_uri: redirectUri } = (oidc.params ?? ctx.query) as Record<string, unknown>;
  return typeof redirectUri === 'string' && redirectUri !== '' ? redirectUri : undefined;
}
