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
