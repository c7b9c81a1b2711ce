import type { BrowserSession } from '../lib/account-security';
import { MIN_PASSWORD_LENGTH } from '../lib/password-policy';
import { html, type SafeHtml } from './html';
import { fieldAria, type LayoutOptions, layout, messages } from './layout';

export interface AccountFrame {
  member: { name: string; email: string };
  csrfToken: string;
  error?: string;
  /** The field the error is about (marked invalid and described by the message). */
  errorField?: string | undefined;
  notice?: string;
}

const when = (value: Date) => value.toISOString().replace('T', ' ').slice(0, 16);

/**
 * A browser session's User-Agent as a member recognises it ("Firefox on Linux"), as plain text;
 * one not recognised is the User-Agent as it is.
 */
function browserName(userAgent: string | null): string {
  if (!userAgent) return 'unknown';
  const browser = /\bEdg(e|A|iOS)?\//.test(userAgent)
    ? 'Edge'
    : /\bOPR\//.test(userAgent)
      ? 'Opera'
      : /\b(Firefox|FxiOS)\//.test(userAgent)
        ? 'Firefox'
        : /\b(Chrome|Chromium|CriOS)\//.test(userAgent)
          ? 'Chrome'
          : /\bVersion\/[\d.]+.*Safari\//.test(userAgent)
            ? 'Safari'
            : undefined;
  if (!browser) return userAgent;
  const system = /Android/.test(userAgent)
    ? 'Android'
    : /iPhone|iPad|iPod/.test(userAgent)
      ? 'iOS'
      : /Windows/.test(userAgent)
        ? 'Windows'
        : /Macintosh|Mac OS X/.test(userAgent)
          ? 'macOS'
          : /CrOS/.test(userAgent)
            ? 'ChromeOS'
            : /Linux/.test(userAgent)
              ? 'Linux'
              : undefined;
  return system ? `${browser} on ${system}` : browser;
}

/** The same in a table cell: the whole User-Agent in its title, where it was shortened. */
function browserCell(userAgent: string | null): SafeHtml | string {
  const name = browserName(userAgent);
  return userAgent && name !== userAgent ? html`<span title="${userAgent}">${name}</span>` : name;
}

function page(view: AccountFrame, current: NonNullable<LayoutOptions['current']>, title: string, body: SafeHtml) {
  return layout(
    { title, member: view.member, csrfToken: view.csrfToken, current },
    html`<h1>${title}</h1>
      ${messages(view)}
      ${body}`,
  );
}

export function sessionsPage(view: AccountFrame & { sessions: BrowserSession[] }): string {
  return page(
    view,
    'sessions',
    'Browser sessions',
    html`<section class="card">
      <p class="hint">Where you are signed in to these pages. Signing a session out does not revoke tokens.</p>
      <table class="stacking"><thead><tr><th scope="col">Browser</th><th scope="col">From</th><th scope="col">Signed in (UTC)</th><th scope="col">Actions</th></tr></thead><tbody>
      ${view.sessions.map(
        (session) => html`<tr class="session">
          <td data-label="Browser">${browserCell(session.userAgent ?? null)}${session.current ? html` <strong>(this browser)</strong>` : ''}</td>
          <td data-label="From" class="whole">${session.ip ?? ''}</td><td data-label="Signed in (UTC)">${when(session.createdAt)}</td>
          <td data-label="Actions"><form method="post" action="/settings/sessions/${session.handle}/sign-out">
            <input type="hidden" name="csrf" value="${view.csrfToken}">
            <button type="submit" class="danger" aria-label="Sign out ${browserName(session.userAgent ?? null)}, signed in ${when(session.createdAt)}">Sign out</button></form></td></tr>`,
      )}</tbody></table>
      ${
        view.sessions.some((session) => !session.current)
          ? html`<form method="post" action="/settings/sessions/sign-out-others" class="actions">
        <input type="hidden" name="csrf" value="${view.csrfToken}">
        <button type="submit" class="danger">Sign out every other session</button></form>`
          : ''
      }
    </section>`,
  );
}

export function passwordPage(view: AccountFrame): string {
  return page(
    view,
    'password',
    'Change your password',
    html`<section class="card">
      <form method="post" action="/settings/password">
        <input type="hidden" name="csrf" value="${view.csrfToken}">
        <label for="current-password">Current password</label>
        <input type="password" id="current-password" name="current_password" autocomplete="current-password" required${fieldAria(view.errorField, 'current_password')}>
        <label for="new-password">New password</label>
        <input type="password" id="new-password" name="new_password" autocomplete="new-password" required minlength="${String(MIN_PASSWORD_LENGTH)}"${fieldAria(view.errorField, 'new_password', 'new-password-hint')}>
        <p class="hint" id="new-password-hint">At least ${String(MIN_PASSWORD_LENGTH)} characters; very common passwords are refused.</p>
        <div><input type="checkbox" id="revoke-tokens" name="revoke_tokens"> <label for="revoke-tokens" class="inline">Also revoke all my tokens and application access</label></div>
        <p class="hint">Every other browser session is signed out.</p>
        <div class="actions"><button type="submit" class="primary">Change password</button></div>
      </form>
    </section>`,
  );
}
