import { html } from './html';
import { layout } from './layout';

/** `detail`: for whoever can act on it (an application's developer), after the member's words. */
export function errorPage(title: string, message: string, detail?: string): string {
  return layout(
    { title },
    html`<div class="card"><h1>${title}</h1><p class="error" role="alert">${message}</p>
      ${detail ? html`<p class="hint">${detail}</p>` : ''}
      <p><a href="/settings/applications">Go to your settings</a></p></div>`,
  );
}

/**
 * An authorization request's sign-in or consent page whose request is no longer open: most often
 * it was answered (Back after Allow lands here, the code already sent), or it waited longer than
 * its hour. Not an alert: nothing may have gone wrong. There is no application address to offer
 * (the request, with its redirect URI, is gone), so it says where to check what was authorized.
 */
export function signInOverPage(): string {
  const title = 'This sign-in request is closed';
  return layout(
    { title },
    html`<div class="card"><h1>${title}</h1>
      <p>It may already have been completed: if you just allowed or denied an application, your answer was sent to it and there is nothing more to do here. Otherwise it expired (a request stays open for an hour) or you were signed out meanwhile.</p>
      <p>To sign in to the application, go back to it and start again.</p>
      <p><a href="/settings/authorized-apps">See the applications you have authorized</a></p></div>`,
  );
}

/**
 * A form or a sign-in step that came without any of this site's cookies: the browser blocks them
 * (all cookies, or this site's), or dropped them since the page was loaded. Said plainly, with
 * what to allow, since reloading alone cannot help a browser that blocks them.
 */
export function cookiesNeededPage(siteHost: string, startAgain: string): string {
  const title = 'This site needs cookies to sign you in';
  return layout(
    { title },
    html`<div class="card"><h1>${title}</h1>
      <p class="error" role="alert">Your browser did not send this site's cookies, so it could not tell that this request came from its own page. Nothing was changed.</p>
      <p>If your browser blocks cookies (for every site, or for this one), allow them for <strong>${siteHost}</strong> in its privacy settings: this site uses them only to keep you signed in and to protect its forms. Then ${startAgain}</p>
      <p><a href="/settings/applications">Go to your settings</a></p></div>`,
  );
}

/**
 * An authorization request's error that was not sent back to an application the member has not
 * authorized (http/untrusted-error-redirects.ts): the member decides whether to go there.
 */
export function heldErrorPage({
  applicationName,
  error,
  errorDescription,
  continueTo,
}: {
  applicationName: string;
  error: string;
  errorDescription?: string;
  /** The application's redirect URI with the error, for a query or fragment answer. */
  continueTo?: string;
}): string {
  const title = 'This request was stopped';
  const target = continueTo === undefined ? undefined : new URL(continueTo);
  // A native app's private-use scheme (com.example.app:/cb) has no host: it is named by its scheme.
  const where = target && (target.host || target.protocol.replace(/:$/, ''));
  return layout(
    { title },
    html`<div class="card"><h1>${title}</h1>
      <p class="error" role="alert">The request of “${applicationName}” could not be processed, so nothing was shared with it.
      You have not authorized this application, so you were not sent on to its address.</p>
      <p class="hint">For the developer of the application: ${error}: ${errorDescription ?? 'the request could not be processed'}</p>
      ${
        continueTo === undefined
          ? html`<p>Go back to the application and start again.</p>`
          : html`<p>Only if you trust it: <a href="${continueTo}" rel="noreferrer">return to ${applicationName} at ${where}</a>.</p>`
      }
      <p><a href="/settings/applications">Go to your settings</a></p></div>`,
  );
}
