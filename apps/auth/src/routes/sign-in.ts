import Router from '@koa/router';
import type { Context } from 'koa';
import type { CsrfState } from '../http/csrf';
import type { AuthServices } from '../services';
import { tabPageOf } from '../views/layout';
import { type SignInReason, signInPage, signInReason, signOutPage } from '../views/sign-in';
import { formBody } from './form-body';
import { signInFromForm } from './sign-in-form';

/** Only local paths are followed after sign-in: never an open redirect. */
export function safeReturnPath(value: unknown): string {
  return typeof value === 'string' && /^\/(?![/\\])/.test(value) ? value : '/settings/applications';
}

/**
 * A settings page or form reached without a session goes to the sign-in page, to come back to
 * its page after it (a form's action answers only POST, so it is no place to return to). A form
 * posted (303, so that the browser GETs the sign-in page) was not processed: the member was signed
 * out meanwhile, and the sign-in page says so rather than look as if nothing had happened.
 */
export function sendToSignIn(ctx: Context): void {
  const returnTo = `/login?return_to=${encodeURIComponent(tabPageOf(ctx.path))}`;
  if (ctx.method === 'GET' || ctx.method === 'HEAD') {
    ctx.redirect(returnTo);
    return;
  }
  ctx.status = 303;
  ctx.redirect(`${returnTo}&reason=${'signed_out' satisfies SignInReason}`);
}

export function signInRoutes(services: AuthServices): Router {
  const router = new Router();
  router.use(services.csrf);

  // The settings' first tab is the site's home page, also at the settings' own root.
  for (const home of ['/', '/settings', '/settings/'])
    router.get(home, (ctx) => ctx.redirect('/settings/applications'));

  // Also when signed in already: signing in here as another member switches accounts.
  router.get('/login', (ctx) => {
    const returnTo = safeReturnPath(ctx.query.return_to);
    ctx.type = 'html';
    ctx.body = signInPage({
      action: `/login?return_to=${encodeURIComponent(returnTo)}`,
      csrfToken: (ctx.state as CsrfState).csrfToken,
      reason: signInReason(ctx.query.reason),
    });
  });

  router.post('/login', formBody, async (ctx) => {
    const returnTo = safeReturnPath(ctx.query.return_to);
    const member = await signInFromForm(ctx, services, { action: `/login?return_to=${encodeURIComponent(returnTo)}` });
    if (!member) return;
    ctx.status = 303;
    ctx.redirect(returnTo);
  });

  router.get('/logout', async (ctx) => {
    // Nobody to sign out: the sign-in page, rather than a question about signing out.
    if (!(await services.memberSessions.current(ctx))) return ctx.redirect('/login');
    ctx.type = 'html';
    ctx.body = signOutPage((ctx.state as CsrfState).csrfToken);
  });

  router.post('/logout', formBody, async (ctx) => {
    await services.memberSessions.end(ctx);
    ctx.status = 303;
    ctx.redirect(`/login?reason=${'left' satisfies SignInReason}`);
  });

  return router;
}
