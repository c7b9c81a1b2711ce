import { html } from './html';
import { layout } from './layout';

export interface SignInView {
  action: string;
  csrfToken: string;
  email?: string;
  error?: string;
  /** Shown above the form when signing in for an application. */
  applicationName?: string | undefined;
  /** For an application's request: where "Cancel" posts, which sends the application a refusal. */
  cancelAction?: string | undefined;
  /** Why the member is asked to sign in, said above the form (routes/sign-in.ts). */
  reason?: SignInReason | undefined;
}

/**
 * The sign-in page's `reason`s: `signed_out`, a settings form posted after the member's session
 * ended (sendToSignIn); `left`, the member has just signed out here.
 */
const SIGN_IN_REASONS = {
  signed_out:
    'You were signed out meanwhile (in another browser or tab, by a password change, or as your session ended), so the form you sent was not processed. Sign in to go back to its page, then fill it in again.',
  left: 'You have signed out of this site in this browser. Applications you authorized keep their access.',
} as const;

export type SignInReason = keyof typeof SIGN_IN_REASONS;

/** The reason named in the sign-in page's query; undefined for anything else. */
export function signInReason(value: unknown): SignInReason | undefined {
  return typeof value === 'string' && Object.hasOwn(SIGN_IN_REASONS, value) ? (value as SignInReason) : undefined;
}

/**
 * Members are added and their passwords reset by the site's administrator (`pnpm cli member
 * create`, `member set-password`); there is no self-service sign-up or reset by e-mail, so the
 * page says whom to ask rather than leaving a member who cannot sign in with nothing to try.
 */
export const ACCOUNT_HELP =
  'No account yet, or forgotten your password? Ask the administrator of this site: they add members and set new passwords.';

/**
 * What a browser opening /logout gets: signing out is a POST (a link or an image on another
 * site must not sign anyone out), so the address asks, with the form that does it.
 */
export function signOutPage(csrfToken: string): string {
  return layout(
    { title: 'Sign out' },
    html`<div class="card">
      <h1>Sign out</h1>
      <p>Sign out of this site in this browser? Applications you authorized keep their access.</p>
      <form method="post" action="/logout">
        <input type="hidden" name="csrf" value="${csrfToken}">
        <div class="actions"><button type="submit" class="primary">Sign out</button>
          <a href="/settings/applications">Stay signed in</a></div>
      </form>
    </div>`,
  );
}

export function signInPage(view: SignInView): string {
  // After a refusal the address typed is kept: the focus goes where the member types next (the
  // password, or the address if none was given), and both fields name the message.
  const focused = view.error && view.email ? 'password' : 'email';
  const describedBy = view.error ? html` aria-describedby="sign-in-error"` : '';
  const focus = (field: string) => (field === focused ? html` autofocus` : '');
  return layout(
    { title: 'Sign in' },
    html`<div class="card">
      <h1>Sign in</h1>
      ${view.applicationName ? html`<p>to continue to <strong>${view.applicationName}</strong></p>` : ''}
      ${view.error ? html`<p class="error" role="alert" id="sign-in-error">${view.error}</p>` : ''}
      ${view.reason ? html`<p class="notice card" role="status">${SIGN_IN_REASONS[view.reason]}</p>` : ''}
      <form method="post" action="${view.action}" novalidate>
        <input type="hidden" name="csrf" value="${view.csrfToken}">
        <label for="email">E-mail address</label>
        <input type="email" id="email" name="email" autocomplete="username" required value="${view.email ?? ''}"${describedBy}${focus('email')}>
        <label for="password">Password</label>
        <input type="password" id="password" name="password" autocomplete="current-password" required${describedBy}${focus('password')}>
        <div class="actions"><button type="submit" class="primary">Sign in</button></div>
      </form>
      ${
        view.cancelAction
          ? html`<form method="post" action="${view.cancelAction}" class="inline hint">
        <input type="hidden" name="csrf" value="${view.csrfToken}">
        Not now? <button type="submit" class="link">Cancel and return to the application</button>
      </form>`
          : ''
      }
      <p class="hint" id="account-help">${ACCOUNT_HELP}</p>
    </div>`,
  );
}
