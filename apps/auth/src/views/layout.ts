import { html, type SafeHtml } from './html';

export interface LayoutOptions {
  title: string;
  /** The signed-in member, for the navigation of the settings pages. */
  member?: { name: string; email: string };
  csrfToken?: string;
  /** Which settings tab is current. */
  current?: 'applications' | 'tokens' | 'authorized-apps' | 'security' | 'sessions' | 'password';
}

const TABS: Array<{ key: NonNullable<LayoutOptions['current']>; href: string; label: string }> = [
  { key: 'applications', href: '/settings/applications', label: 'OAuth applications' },
  { key: 'tokens', href: '/settings/tokens', label: 'Personal access tokens' },
  { key: 'authorized-apps', href: '/settings/authorized-apps', label: 'Authorized apps' },
  { key: 'security', href: '/settings/security', label: 'Security log' },
  // [security] account hygiene pages (routes/account.ts)
  { key: 'sessions', href: '/settings/sessions', label: 'Sessions' },
  { key: 'password', href: '/settings/password', label: 'Password' },
];

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
          <span class="who">${options.member.email}</span>
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
  <link rel="stylesheet" href="/assets/auth.css">
</head>
<body>
  ${nav}
  <main id="main" class="${options.member ? 'wide' : 'narrow'}">
    ${body}
  </main>
</body>
</html>`.toString();
}
