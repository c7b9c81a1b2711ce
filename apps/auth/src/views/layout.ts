import { ICON_PATH, STYLESHEET_PATH } from './assets';
import { html, type SafeHtml } from './html';

export interface LayoutOptions {
  title: string;
  /** The signed-in member, for the navigation of the settings pages. */
  member?: { name: string; email: string };
  csrfToken?: string;
  /** Which settings tab is current. */
  current?: 'applications' | 'tokens' | 'authorized-apps' | 'security' | 'sessions' | 'password';
}

type Tab = NonNullable<LayoutOptions['current']>;

const TABS: Array<{ key: Tab; href: string; label: string }> = [
  { key: 'applications', href: '/settings/applications', label: 'OAuth applications' },
  { key: 'tokens', href: '/settings/tokens', label: 'Personal access tokens' },
  { key: 'authorized-apps', href: '/settings/authorized-apps', label: 'Authorized apps' },
  { key: 'security', href: '/settings/security', label: 'Security log' },
  // [security] account hygiene pages (routes/account.ts)
  { key: 'sessions', href: '/settings/sessions', label: 'Sessions' },
  { key: 'password', href: '/settings/password', label: 'Password' },
];

/**
 * What a settings page says after a change that redirected to it (Post/Redirect/Get, 303 See
 * Other). The redirect carries only one of these fixed codes (`?notice=deleted`), never the
 * member's data, and needs no server-side state; each page knows only its own codes, so a link
 * cannot make one page claim another page's change.
 */
export const NOTICES = {
  applications: {
    updated: 'The application was saved. Authorization requests must now use one of its new redirect URIs.',
    deleted: 'The application was deleted; every token, code and consent issued to it was revoked.',
    already_registered:
      'This form already registered its application; its secret was shown once — rotate the secret to get another.',
    // A public application has no secret: it is simply in the list.
    already_registered_public: 'This form already registered its application; it is in the list below.',
    already_rotated: 'This secret was already rotated; the new one was shown once — rotate again to get another.',
  },
  tokens: {
    revoked: 'The token was revoked; it stops working at once.',
    already_created:
      'This form already created its token; it was shown once — revoke it and create another if you did not copy it.',
  },
  'authorized-apps': { revoked: "The application's access was revoked; its tokens stop working at once." },
  security: {},
  sessions: {
    signed_out: 'The session was signed out.',
    others_signed_out: 'Every other session was signed out; this browser stays signed in.',
  },
  password: {
    changed: 'Your password was changed. Every other browser session was signed out.',
    changed_tokens_revoked:
      'Your password was changed. Every other browser session was signed out, and every token and application access was revoked.',
  },
} as const satisfies Record<Tab, Record<string, string>>;

export type NoticeCode<T extends Tab> = keyof (typeof NOTICES)[T] & string;

/** Where a change redirects to: the tab's page, showing this notice. */
export function noticeLocation<T extends Tab>(tab: T, code: NoticeCode<T>): string {
  return `${tabPage(tab)}?notice=${code}`;
}

/** The text of the notice named in a tab page's query; undefined for anything else. */
export function noticeText(tab: Tab, code: unknown): string | undefined {
  const texts: Record<string, string> = NOTICES[tab];
  return typeof code === 'string' && Object.hasOwn(texts, code) ? texts[code] : undefined;
}

/** The id of a refused change's message, which the field it is about names in aria-describedby. */
export const FORM_ERROR_ID = 'form-error';

/**
 * aria attributes of a form field: invalid and described by the form's message when it is the
 * refused one (`refusedField`), and by its hint. The refused field also takes the focus (the
 * pages run no script): on a long page the member lands on the field to mend, not at the top.
 */
export function fieldAria(refusedField: string | undefined, field: string, hintId?: string): SafeHtml {
  const invalid = refusedField === field;
  const described = [hintId, invalid ? FORM_ERROR_ID : undefined].filter(Boolean).join(' ');
  return html`${invalid ? html` aria-invalid="true"` : ''}${described ? html` aria-describedby="${described}"` : ''}${invalid ? html` autofocus` : ''}`;
}

/** An error (the change was refused) and a notice (it was made), each announced to screen readers. */
export function messages(view: { error?: string; notice?: string }): SafeHtml {
  return html`${view.error ? html`<p class="error" role="alert" id="${FORM_ERROR_ID}">${view.error}</p>` : ''}
      ${view.notice ? html`<p class="notice card" role="status">${view.notice}</p>` : ''}`;
}

function tabPage(tab: Tab): string {
  return TABS.find((candidate) => candidate.key === tab)?.href ?? '/settings/applications';
}

/**
 * The tab page a settings path belongs to: where to come back to after signing in. A form's
 * action (/settings/tokens/7/revoke) answers only POST, so it is no place to return to.
 */
export function tabPageOf(path: string): string {
  const tab = TABS.find((candidate) => path === candidate.href || path.startsWith(`${candidate.href}/`));
  return tab?.href ?? '/settings/applications';
}

export function layout(options: LayoutOptions, body: SafeHtml): string {
  const nav = options.member
    ? html`<header class="topbar">
        <a class="brand" href="/settings/applications">Member contacts</a>
        <nav aria-label="Developer settings">
          ${TABS.map(
            (tab) =>
              html`<a href="${tab.href}" ${options.current === tab.key ? html`aria-current="page"` : ''}>${tab.label}</a>`,
          )}
        </nav>
        <form method="post" action="/logout" class="inline">
          <input type="hidden" name="csrf" value="${options.csrfToken ?? ''}">
          <span class="who" title="${options.member.email}">${options.member.email}</span>
          <button type="submit" class="link">Sign out</button>
        </form>
      </header>`
    : html`<header class="topbar"><span class="brand">Member contacts</span></header>`;
  return html`<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${options.title} · Member contacts</title>
  <link rel="icon" href="${ICON_PATH}" type="image/svg+xml">
  <link rel="stylesheet" href="${STYLESHEET_PATH}">
</head>
<body>
  <a class="skip" href="#main">Skip to the content</a>
  ${nav}
  <main id="main" class="${options.member ? 'wide' : 'narrow'}">
    ${body}
  </main>
</body>
</html>`.toString();
}
