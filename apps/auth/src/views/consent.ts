import { html } from './html';
import { layout } from './layout';

export interface ConsentView {
  action: string;
  /** Signs this browser out and asks the application's request again, for another member to sign in. */
  switchAccountAction: string;
  csrfToken: string;
  applicationName: string;
  /** undefined for a client built into this service (the API documentation). */
  ownerName: string | undefined;
  member: { name: string; email: string };
  scopes: Array<{ scope: string; description: string }>;
  /** Where the answer goes (the request's redirect URI, registered exactly): its origin is shown. */
  redirectUri: string;
}

export function consentPage(view: ConsentView): string {
  return layout(
    { title: `Authorize ${view.applicationName}` },
    html`<div class="card">
      <h1>Authorize ${view.applicationName}</h1>
      <p><strong>${view.applicationName}</strong>, ${
        view.ownerName === undefined ? 'part of this service' : html`an application registered by ${view.ownerName}`
      }, wants to access your account (${view.member.email}).</p>
      <h2>It will be able to:</h2>
      <ul class="scopes">
        ${view.scopes.map((item) => html`<li>${item.description} <span class="hint">(${item.scope})</span></li>`)}
      </ul>
      <p class="hint">Your answer goes back to <strong>${originOf(view.redirectUri)}</strong>. You can withdraw this
        access at any time under Settings → Authorized apps.</p>
      <form method="post" action="${view.action}">
        <input type="hidden" name="csrf" value="${view.csrfToken}">
        <div class="actions">
          <button type="submit" name="decision" value="allow" class="primary">Allow</button>
          <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
        </div>
      </form>
      <form method="post" action="${view.switchAccountAction}" class="inline hint">
        <input type="hidden" name="csrf" value="${view.csrfToken}">
        Not ${view.member.name}? <button type="submit" class="link">Use another account</button>
      </form>
    </div>`,
  );
}

/**
 * [security] The origin (scheme, host, port) the member is sent back to, so that an application
 * named like another cannot hide where the access goes; the whole URI for schemes without one.
 */
function originOf(redirectUri: string): string {
  const url = URL.parse(redirectUri);
  return url && url.origin !== 'null' ? url.origin : redirectUri;
}
