import type { Context, Next } from 'koa';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { ClientDirectory } from '../provider/client-directory';
import { errorPage } from '../views/error';

/**
 * [security] An authorization request is checked against the application's redirect URIs when it
 * arrives, and oidc-provider does not check them again when it resumes after the member's sign-in
 * and consent (`/oauth/authorize/:uid`, route `resume`), where it issues the code and sends the
 * browser to the redirect URI. An owner who removed that URI meanwhile (it may no longer be theirs)
 * must not have the code, or the member's answer, sent there.
 *
 * So after the resume has answered, the redirect URI is checked against the application as stored
 * now (read afresh, not from the client cache): if it is gone, the code just issued is destroyed
 * and the browser gets a page instead of the redirect. Checking after the code was stored closes
 * the race with the owner's edit, which revokes the codes of a removed URI that exist when it
 * commits: either the edit sees this code, or this check sees the edit.
 * (The interaction routes check earlier too, so that no consent is asked for such a request.)
 * `provider.use()` middleware; it looks only at answers of the `resume` route, after `next()`.
 */
/**
 * Whether the application still registers `redirectUri` (undefined: the request named none, and
 * oidc-provider used the one registered), by oidc-provider's own matching (a native app's
 * loopback port included). An application deleted meanwhile registers none.
 */
export async function redirectUriRegistered(
  provider: Provider,
  clientId: string,
  redirectUri: unknown,
): Promise<boolean> {
  const client = await provider.Client.find(clientId);
  return client !== undefined && (typeof redirectUri !== 'string' || client.redirectUriAllowed(redirectUri));
}

export function refuseRemovedRedirectUri(provider: Provider, clients: ClientDirectory) {
  return async function refuseAnswersToRemovedRedirectUris(ctx: Context, next: Next) {
    await next();
    const oidc = (ctx as Partial<KoaContextWithOIDC>).oidc;
    if (oidc?.route !== 'resume') return;
    const clientId = oidc.client?.clientId;
    const redirectUri = oidc.params?.redirect_uri;
    if (clientId === undefined || typeof redirectUri !== 'string') return;
    clients.forget(clientId);
    if (await redirectUriRegistered(provider, clientId, redirectUri)) return;
    // The code just issued for it (the consent stays: the member gave it, to a known application).
    await oidc.entities.AuthorizationCode?.destroy();
    ctx.remove('Location');
    ctx.status = 400;
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-store');
    ctx.body = errorPage(
      'This application changed its addresses',
      'The application no longer accepts answers at the address this request named, so nothing was sent there. Go back to the application and start again.',
      `redirect_uri ${redirectUri} is no longer registered for client ${clientId}.`,
    );
  };
}
