import type { PublicMember } from '@contacts/db';
import type { Context } from 'koa';
import type { CsrfState } from '../http/csrf';
import { attemptSignIn } from '../lib/sign-in';
import type { AuthServices } from '../services';
import { type SignInView, signInPage } from '../views/sign-in';

/**
 * Handles a posted sign-in form (the settings pages' and an authorization request's alike):
 * on success starts the member's session and returns the member; otherwise answers with the
 * form again, its message and status (401, or 429 with Retry-After), and returns undefined.
 */
export async function signInFromForm(
  ctx: Context,
  services: AuthServices,
  form: Pick<SignInView, 'action' | 'applicationName' | 'cancelAction'>,
): Promise<PublicMember | undefined> {
  const body = ctx.request.body as Record<string, unknown>;
  const email = typeof body.email === 'string' ? body.email : '';
  const password = typeof body.password === 'string' ? body.password : '';
  const outcome = await attemptSignIn(
    { db: services.db, guard: services.signInGuard, audit: services.audit },
    { email, password, ip: ctx.ip },
  );
  if (outcome.ok) {
    await services.memberSessions.start(ctx, outcome.member.id);
    return outcome.member;
  }
  ctx.status = outcome.status;
  if (outcome.retryAfter) ctx.set('Retry-After', String(outcome.retryAfter));
  ctx.type = 'html';
  ctx.body = signInPage({
    action: form.action,
    csrfToken: (ctx.state as CsrfState).csrfToken,
    email,
    error: outcome.message,
    applicationName: form.applicationName,
    cancelAction: form.cancelAction,
  });
  return undefined;
}
