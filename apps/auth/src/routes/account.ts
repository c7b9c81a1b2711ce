import type { PublicMember } from '@contacts/db';
import Router from '@koa/router';
import type { Context } from 'koa';
import type { CsrfState } from '../http/csrf';
import {
  changePassword,
  listBrowserSessions,
  signOutBrowserSession,
  signOutOtherBrowserSessions,
  TooManyAttempts,
} from '../lib/account-security';
import { InputError } from '../lib/validation';
import type { AuthServices } from '../services';
import { type AccountFrame, passwordPage, sessionsPage } from '../views/account';
import { noticeLocation, noticeText, tabPageOf } from '../views/layout';
import { formBody } from './form-body';
import { sendToSignIn } from './sign-in';

interface AccountState extends CsrfState {
  member: PublicMember;
  sessionIdHash: string;
}

/**
 * The signed-in member's account hygiene: their browser sessions (each can be signed out) and
 * a password change (signs every other session out; optionally revokes every token).
 * Each change lands in the security log. Post/Redirect/Get: a change answers 303 to its page,
 * which shows what was done, so that reloading the page does not post the form again.
 */
export function accountRoutes(services: AuthServices): Router {
  const { db, audit, signInGuard } = services;
  const router = new Router({ prefix: '/settings' });
  router.use(['/sessions', '/password'], services.csrf);

  router.use(['/sessions', '/password'], async (ctx, next) => {
    const member = await services.memberSessions.current(ctx);
    const sessionIdHash = services.memberSessions.currentIdHash(ctx);
    if (!member || !sessionIdHash) {
      sendToSignIn(ctx);
      return;
    }
    Object.assign(ctx.state as AccountState, { member, sessionIdHash });
    await next();
  });

  const state = (ctx: Context) => ctx.state as AccountState;
  const frame = (ctx: Context, extra: Partial<AccountFrame> = {}): AccountFrame => ({
    member: state(ctx).member,
    csrfToken: state(ctx).csrfToken,
    ...extra,
  });
  const body = (ctx: Context) => (ctx.request.body ?? {}) as Record<string, unknown>;
  const render = async (ctx: Context, work: () => Promise<string>) => {
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await work();
  };
  const seeOther = (ctx: Context, location: string) => {
    ctx.status = 303;
    ctx.redirect(location);
  };
  const sessions = async (ctx: Context, extra: Partial<AccountFrame> = {}) =>
    sessionsPage({
      ...frame(ctx, extra),
      sessions: await listBrowserSessions(db, state(ctx).member.id, state(ctx).sessionIdHash),
    });

  router.get('/sessions', (ctx) =>
    render(ctx, () => sessions(ctx, { notice: noticeText('sessions', ctx.query.notice) })),
  );
  router.post('/sessions/sign-out-others', formBody, async (ctx) => {
    const memberId = state(ctx).member.id;
    const ended = await signOutOtherBrowserSessions(db, memberId, state(ctx).sessionIdHash);
    await audit('session.others_signed_out', { memberId, ip: ctx.ip, details: { sessions_signed_out: ended } });
    seeOther(ctx, noticeLocation('sessions', 'others_signed_out'));
  });
  router.get('/sessions/sign-out-others', (ctx) => ctx.redirect(tabPageOf(ctx.path)));
  router.post('/sessions/:handle/sign-out', formBody, async (ctx) => {
    const memberId = state(ctx).member.id;
    let ended: { current: boolean };
    try {
      ended = await signOutBrowserSession(db, memberId, ctx.params.handle, state(ctx).sessionIdHash);
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      ctx.status = 422;
      return render(ctx, () => sessions(ctx, { error: error.message }));
    }
    await audit('session.signed_out', { memberId, ip: ctx.ip, details: { this_browser: ended.current } });
    seeOther(ctx, ended.current ? '/login' : noticeLocation('sessions', 'signed_out'));
  });
  // The action's address left in the address bar opens the sessions page instead of a 405.
  router.get('/sessions/:handle/sign-out', (ctx) => ctx.redirect(tabPageOf(ctx.path)));

  router.get('/password', (ctx) =>
    render(ctx, async () => passwordPage(frame(ctx, { notice: noticeText('password', ctx.query.notice) }))),
  );
  router.post('/password', formBody, async (ctx) => {
    const memberId = state(ctx).member.id;
    const revokeTokens = body(ctx).revoke_tokens === 'on';
    try {
      const { otherSessionsEnded } = await changePassword(db, signInGuard, {
        memberId,
        currentPassword: body(ctx).current_password,
        newPassword: body(ctx).new_password,
        revokeTokens,
        keepSessionIdHash: state(ctx).sessionIdHash,
        ip: ctx.ip,
      });
      // [security] This browser goes on under a new session id: whoever holds a copy of the old
      // one (a stolen cookie, the reason to change a password) is signed out with the others.
      await services.memberSessions.start(ctx, memberId);
      await audit('password.changed', {
        memberId,
        ip: ctx.ip,
        details: { other_sessions_signed_out: otherSessionsEnded, tokens_revoked: revokeTokens },
      });
      seeOther(ctx, noticeLocation('password', revokeTokens ? 'changed_tokens_revoked' : 'changed'));
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      ctx.status = 422;
      if (error instanceof TooManyAttempts) {
        ctx.status = 429;
        ctx.set('Retry-After', String(error.retryAfter));
      }
      return render(ctx, async () => passwordPage(frame(ctx, { error: error.message, errorField: error.field })));
    }
  });

  return router;
}
