import { API_DOCS_CLIENT_ID } from '@contacts/config';
import type { MemberGrantRow, NamedAuditEventRow, OAuthClientRow, PersonalAccessTokenRow } from '@contacts/db';
import { API_DOCS_CLIENT_NAME } from '../lib/api-docs-client';
import type { AuditEventName } from '../lib/audit';
import { SCOPE_DESCRIPTIONS, scopeDescription } from '../provider/scopes';
import { html, type SafeHtml } from './html';
import { fieldAria, type LayoutOptions, layout, messages } from './layout';

export interface SettingsFrame {
  member: { name: string; email: string };
  csrfToken: string;
  error?: string;
  /** What the change that redirected here did (layout.ts NOTICES). */
  notice?: string;
  /**
   * The one-time id of the page's create form (an application, a token): posted twice, the
   * same form creates one thing (routes/settings.ts).
   */
  formId?: string;
  /** A secret or token shown exactly once, right after it was created. */
  revealed?: { label: string; value: string; extra?: SafeHtml };
  /** A public application just registered: it has no secret, only its id to copy. */
  registered?: SafeHtml;
  /**
   * A create form that was refused (422): what was typed is shown again, and the field the
   * message is about (InputError's field) is marked invalid and pointed at the message.
   */
  refused?: { field: string | undefined; input: Record<string, unknown> };
}

/** A refused form's value of `name` as text ('' when absent or not text). */
const typed = (view: SettingsFrame, name: string): string => {
  const value = view.refused?.input[name];
  return typeof value === 'string' ? value : '';
};

/** The values of a refused form's checkboxes named `name`; undefined when nothing was refused. */
const ticked = (view: SettingsFrame, name: string): string[] | undefined => {
  if (!view.refused) return undefined;
  const value = view.refused.input[name];
  return (Array.isArray(value) ? value : [value]).filter((item): item is string => typeof item === 'string');
};

/** aria attributes of a field of a refused form (see fieldAria). */
const aria = (view: SettingsFrame, field: string, hintId?: string): SafeHtml =>
  fieldAria(view.refused?.field, field, hintId);

/** [security] A live token that expires within 7 days is flagged on the tokens page. */
const expiresSoon = (expiresAt: Date) => expiresAt.getTime() - Date.now() < 7 * 24 * 60 * 60 * 1000;

const date = (value: Date | null) => (value ? value.toISOString().slice(0, 10) : 'never');

function frame(view: SettingsFrame, current: NonNullable<LayoutOptions['current']>, title: string, body: SafeHtml) {
  return layout(
    { title, member: view.member, csrfToken: view.csrfToken, current },
    html`<h1>${title}</h1>
      ${messages(view)}
      ${
        view.revealed
          ? html`<div class="notice card" role="status"><p><strong>${view.revealed.label}</strong> — copy it now, it will not be shown again.</p>
          <code class="secret" id="revealed-secret">${view.revealed.value}</code>${view.revealed.extra ?? ''}</div>`
          : ''
      }
      ${view.registered ? html`<div class="notice card" role="status"><p><strong>Application registered.</strong> It has no secret: use PKCE (S256).</p>${view.registered}</div>` : ''}
      ${body}`,
  );
}

export function applicationsPage(view: SettingsFrame & { clients: OAuthClientRow[] }): string {
  return frame(
    view,
    'applications',
    'OAuth applications',
    html`<section class="card" aria-labelledby="register-heading">
      <h2 id="register-heading">Register an application</h2>
      <form method="post" action="/settings/applications">
        <input type="hidden" name="csrf" value="${view.csrfToken}">
        <input type="hidden" name="form_id" value="${view.formId ?? ''}">
        <label for="app-name">Application name</label>
        <input type="text" id="app-name" name="name" required maxlength="100" value="${typed(view, 'name')}"${aria(view, 'name')}>
        <label for="redirect-uris">Redirect URIs</label>
        <textarea id="redirect-uris" name="redirect_uris" required${aria(view, 'redirect_uris', 'redirect-hint')}>${typed(view, 'redirect_uris')}</textarea>
        <p class="hint" id="redirect-hint">One per line. Absolute URLs, https (http only for localhost, 127.0.0.1 and [::1]; a public native app may use a private-use scheme such as com.example.app:/callback, and any port on its loopback URIs). They must match exactly, written as a URL library writes them (lower-case host, no default port).</p>
        <fieldset>
          <legend>Client type</legend>
          <div><input type="radio" id="app-confidential" name="client_type" value="confidential"${typed(view, 'client_type') === 'public' ? '' : html` checked`}> <label for="app-confidential" class="inline">Confidential — a server that keeps a client secret</label></div>
          <div><input type="radio" id="app-public" name="client_type" value="public"${typed(view, 'client_type') === 'public' ? html` checked` : ''} aria-describedby="public-hint"> <label for="app-public" class="inline">Public — a single-page or native app that cannot keep a secret</label></div>
          <p class="hint" id="public-hint">A public application gets no secret and must use PKCE (S256) in every authorization request.</p>
        </fieldset>
        <div><input type="checkbox" id="app-dpop" name="dpop_bound_access_tokens"${typed(view, 'dpop_bound_access_tokens') === 'on' ? html` checked` : ''}> <label for="app-dpop" class="inline">Require DPoP (tokens bound to the app's key, RFC 9449)</label></div>
        <div class="actions"><button type="submit" class="primary">Register application</button></div>
      </form>
    </section>
    <section class="card" aria-labelledby="apps-heading">
      <h2 id="apps-heading">Your applications</h2>
      ${
        view.clients.length === 0
          ? html`<p>No applications yet.</p>`
          : html`<table class="stacking"><thead><tr><th scope="col">Name</th><th scope="col">Client ID</th><th scope="col">Redirect URIs</th><th scope="col">Actions</th></tr></thead><tbody>
          ${view.clients.map(
            (client) => html`<tr>
              <td data-label="Name">${client.name}<div class="hint">${clientType(client)}</div></td>
              <td data-label="Client ID"><code class="client-id">${client.client_id}</code></td>
              <td data-label="Redirect URIs">${client.redirect_uris.map((uri) => html`<div>${uri}</div>`)}</td>
              <td data-label="Actions">
                <a class="button secondary" href="/settings/applications/${client.client_id}" aria-label="Edit ${client.name}">Edit</a>
                ${
                  client.is_public || !client.secret_hash
                    ? ''
                    : html`<a class="button secondary" href="/settings/applications/${client.client_id}/rotate-secret" aria-label="Rotate secret of ${client.name}">Rotate secret</a>`
                }
                <a class="button danger" href="/settings/applications/${client.client_id}/delete" aria-label="Delete ${client.name}">Delete</a>
              </td></tr>`,
          )}</tbody></table>`
      }
    </section>`,
  );
}

/** How an application authenticates, as its owner reads it. */
const clientType = (client: OAuthClientRow) =>
  `${client.is_public ? 'Public (PKCE)' : 'Confidential'}${client.dpop_bound_access_tokens ? ', DPoP' : ''}`;

/** The form that renames an application and replaces its redirect URIs. */
export function applicationEditPage(view: SettingsFrame & { client: OAuthClientRow }): string {
  const { client } = view;
  const value = (name: string, stored: string) => (view.refused ? typed(view, name) : stored);
  return frame(
    view,
    'applications',
    `Edit ${client.name}`,
    html`<section class="card" aria-labelledby="edit-heading">
      <h2 id="edit-heading">Application</h2>
      <p>Client ID: <code class="client-id">${client.client_id}</code> · ${clientType(client)}</p>
      <form method="post" action="/settings/applications/${client.client_id}">
        <input type="hidden" name="csrf" value="${view.csrfToken}">
        <label for="app-name">Application name</label>
        <input type="text" id="app-name" name="name" required maxlength="100" value="${value('name', client.name)}"${aria(view, 'name')}>
        <label for="redirect-uris">Redirect URIs</label>
        <textarea id="redirect-uris" name="redirect_uris" required${aria(view, 'redirect_uris', 'redirect-hint')}>${value('redirect_uris', client.redirect_uris.join('\n'))}</textarea>
        <p class="hint" id="redirect-hint">One per line, matched exactly. Tokens already issued keep working; new authorization requests must use one of these.</p>
        <div class="actions"><button type="submit" class="primary">Save</button> <a class="button secondary" href="/settings/applications">Cancel</a></div>
      </form>
    </section>`,
  );
}

export function tokensPage(view: SettingsFrame & { tokens: PersonalAccessTokenRow[]; maxDays: number }): string {
  return frame(
    view,
    'tokens',
    'Personal access tokens',
    html`<section class="card" aria-labelledby="new-token-heading">
      <h2 id="new-token-heading">Create a token</h2>
      <p class="hint">For your own scripts: send it as <code>Authorization: Bearer &lt;token&gt;</code>.</p>
      <form method="post" action="/settings/tokens">
        <input type="hidden" name="csrf" value="${view.csrfToken}">
        <input type="hidden" name="form_id" value="${view.formId ?? ''}">
        <label for="token-name">Name</label>
        <input type="text" id="token-name" name="name" required maxlength="100" value="${typed(view, 'name')}"${aria(view, 'name')}>
        <fieldset${aria(view, 'scopes')}>
          <legend>Scopes</legend>
          ${Object.entries(SCOPE_DESCRIPTIONS).map(
            ([scope, description], index) => html`<div>
              <input type="checkbox" id="scope-${index}" name="scopes" value="${scope}" ${(ticked(view, 'scopes') ?? ['contacts:read']).includes(scope) ? html`checked` : ''}>
              <label for="scope-${index}" class="inline">${scope} — ${description}</label></div>`,
          )}
        </fieldset>
        <label for="token-days">Expires after (days)</label>
        <input type="number" id="token-days" name="days" min="1" max="${view.maxDays}" value="${typed(view, 'days') || String(view.maxDays)}"${aria(view, 'days', 'days-hint')}>
        <p class="hint" id="days-hint">At most ${view.maxDays} days.</p>
        <div class="actions"><button type="submit" class="primary">Create token</button></div>
      </form>
    </section>
    <section class="card" aria-labelledby="tokens-heading">
      <h2 id="tokens-heading">Your tokens</h2>
      ${
        view.tokens.length === 0
          ? html`<p>No tokens yet.</p>`
          : html`<table class="stacking"><thead><tr><th scope="col">Name</th><th scope="col">Scopes</th><th scope="col">Created</th><th scope="col">Expires</th><th scope="col">Last used</th><th scope="col">Status</th></tr></thead><tbody>
          ${view.tokens.map(
            (token) => html`<tr>
              <td data-label="Name">${token.name}</td><td data-label="Scopes">${token.scopes.join(' ')}</td><td data-label="Created">${date(token.created_at)}</td>
              <td data-label="Expires">${date(token.expires_at)}</td><td data-label="Last used">${date(token.last_used_at)}</td>
              <td data-label="Status">${
                token.revoked_at
                  ? 'Revoked'
                  : token.expires_at < new Date()
                    ? 'Expired'
                    : html`${expiresSoon(token.expires_at) ? html`<strong class="expires-soon">Expires soon</strong> ` : ''}<a class="button danger" href="/settings/tokens/${token.id}/revoke" aria-label="Revoke ${token.name}">Revoke</a>`
              }</td></tr>`,
          )}</tbody></table>`
      }
    </section>`,
  );
}

/**
 * What a change that cannot be undone is about to do, asked before it is done: its page is the
 * GET of the change's own address (as /logout asks before signing out), and its form, which posts
 * there, is the only way to make it. No script is needed (the CSP allows none).
 */
export interface Confirmation {
  section: 'applications' | 'tokens' | 'authorized-apps';
  /** The question, also the page's title: "Delete Ledger?". */
  title: string;
  /** What happens, one paragraph each, in the member's words. */
  consequences: string[];
  /** Where the form posts: the change's address. */
  action: string;
  /** The change form's own hidden fields (a rotate form's secret_version). */
  fields?: Record<string, string>;
  confirmLabel: string;
  /** Where Cancel goes: the section's page, unchanged. */
  cancel: string;
}

export function confirmationPage(view: SettingsFrame & { confirmation: Confirmation }): string {
  const { confirmation } = view;
  return frame(
    view,
    confirmation.section,
    confirmation.title,
    html`<section class="card">
      ${confirmation.consequences.map((consequence) => html`<p>${consequence}</p>`)}
      <form method="post" action="${confirmation.action}">
        <input type="hidden" name="csrf" value="${view.csrfToken}">
        ${Object.entries(confirmation.fields ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
        <div class="actions"><button type="submit" class="danger">${confirmation.confirmLabel}</button> <a class="button secondary" href="${confirmation.cancel}">Cancel</a></div>
      </form>
    </section>`,
  );
}

export function authorizedAppsPage(view: SettingsFrame & { grants: MemberGrantRow[] }): string {
  return frame(
    view,
    'authorized-apps',
    'Authorized apps',
    html`<section class="card">
      ${
        view.grants.length === 0
          ? html`<p>You have not authorized any application.</p>`
          : html`<table class="stacking"><thead><tr><th scope="col">Application</th><th scope="col">Access</th><th scope="col">Since</th><th scope="col">Actions</th></tr></thead><tbody>
          ${view.grants.map(
            (
              grant,
            ) => html`<tr><td data-label="Application">${grant.client_name}</td><td data-label="Access">${scopeWords(grant.scope)}</td><td data-label="Since">${date(grant.granted_at)}</td>
              <td data-label="Actions"><a class="button danger" href="/settings/authorized-apps/${grant.client_id}/revoke" aria-label="Revoke access of ${grant.client_name}">Revoke access</a></td></tr>`,
          )}</tbody></table>`
      }
    </section>`,
  );
}

const EVENT_LABELS: Record<AuditEventName, string> = {
  'sign_in.succeeded': 'Signed in',
  'sign_in.failed': 'Failed sign-in attempt',
  'sign_in.throttled': 'Sign-in blocked after too many failures',
  'consent.granted': 'Authorized an application',
  'consent.revoked': "Revoked an application's access",
  'application.created': 'Registered an application',
  'application.updated': 'Changed an application',
  'application.deleted': 'Deleted an application',
  'application.secret_rotated': 'Rotated an application secret',
  'personal_token.created': 'Created a personal access token',
  'personal_token.first_used': 'Personal access token used for the first time',
  'personal_token.revoked': 'Revoked a personal access token',
  'refresh_token.reuse_detected': "Reuse of a refresh token detected: the application's access was revoked",
  // [security]
  'personal_token.reported_leaked': 'A personal access token was reported as leaked and revoked',
  'password.changed': 'Changed the password',
  'account.disabled': 'Account disabled by an administrator',
  'account.enabled': 'Account enabled again by an administrator',
  'session.signed_out': 'Signed out a browser session',
  'session.others_signed_out': 'Signed out every other browser session',
};

/**
 * The application of a security event: its name, which whoever registered it chose (and need not
 * be unique), with its client_id, which is. A deleted application's name is the one its deletion
 * recorded; the API documentation's is its own; the client_id alone otherwise.
 */
function applicationOf(event: NamedAuditEventRow): string {
  const recorded = typeof event.details.client_name === 'string' ? event.details.client_name : undefined;
  const builtIn = event.client_id === API_DOCS_CLIENT_ID ? API_DOCS_CLIENT_NAME : undefined;
  const name = event.client_name ?? recorded ?? builtIn;
  return name ? `${name} (${event.client_id})` : (event.client_id ?? '');
}

/** What happened, in words, with the personal token's name when the event is about one. */
function whatOf(event: NamedAuditEventRow): string {
  const words = EVENT_LABELS[event.event as AuditEventName] ?? event.event;
  return event.token_name ? `${words}: “${event.token_name}”` : words;
}

/** A granted scope string in the consent page's words ("*" means nothing to a member). */
function scopeWords(scope: string): string {
  return scope.split(' ').filter(Boolean).map(scopeDescription).join('; ');
}

export function securityPage(view: SettingsFrame & { events: NamedAuditEventRow[]; length: number }): string {
  return frame(
    view,
    'security',
    'Security log',
    html`<section class="card">
      ${view.events.length >= view.length ? html`<p class="hint">The latest ${view.length} events, newest first.</p>` : ''}
      ${
        view.events.length === 0
          ? html`<p>No security events yet.</p>`
          : html`<table class="stacking"><thead><tr><th scope="col">When (UTC)</th><th scope="col">What</th><th scope="col">Application</th><th scope="col">From</th></tr></thead><tbody>
          ${view.events.map(
            (
              event,
            ) => html`<tr><td data-label="When (UTC)">${event.created_at.toISOString().replace('T', ' ').slice(0, 19)}</td>
              <td data-label="What">${whatOf(event)}</td><td data-label="Application">${applicationOf(event)}</td><td data-label="From" class="whole">${event.ip ?? ''}</td></tr>`,
          )}</tbody></table>`
      }
    </section>`,
  );
}
