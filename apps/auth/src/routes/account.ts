import type { PublicMember } from '@contacts/db';
import Router from '@koa/router';
import type { Context } from 'koa';
import type { CsrfState } from '../http/csrf';
import { changePassword, listBrowserSessions, signOutBrowserSession } from '../lib/account-security';
import { currentMember, currentSessionIdHash } from '../lib/member-sessions';
import { InputError } from '../lib/validation';
import type { AuthServices } from '../services';
import { type AccountFrame, passwordPage, sessionsPage } from '../views/account';
import { formBody } from './form-body';

interface AccountState extends CsrfState {
  member: PublicMember;
  sessionIdHash: string;
}

/**
 * The signed-in member's account hygiene: their browser sessions (each can be signed out) and
 * a password change (signs every other session out; optionally revokes every token).
 * Each change lands in the security log.
 */
export function accountRoutes(services: AuthServices): Router {
  const { db, audit, signInGuard } = services;
  const router = new Router({ prefix: '/settings' });
  router.use(['/sessions', '/password'], services.csrf);

  router.use(['/sessions', '/password'], async (ctx, next) => {
    const member = await currentMember(ctx, db);
    const sessionIdHash = currentSessionIdHash(ctx);
    if (!member || !sessionIdHash) {
      ctx.redirect(`/login?return_to=${encodeURIComponent(ctx.path)}`);
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
  const sessions = async (ctx: Context, extra: Partial<AccountFrame> = {}) =>
    sessionsPage({
      ...frame(ctx, extra),
      sessions: await listBrowserSessions(db, state(ctx).member.id, state(ctx).sessionIdHash),
    });

  router.get('/sessions', (ctx) => render(ctx, () => sessions(ctx)));
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
    if (ended.current) {
      ctx.status = 303;
      ctx.redirect('/login');
      return;
    }
    return render(ctx, () => sessions(ctx, { notice: 'The session was signed out.' }));
  });

  router.get('/password', (ctx) => render(ctx, async () => passwordPage(frame(ctx))));
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
      await audit('password.changed', {
        memberId,
        ip: ctx.ip,
        details: { other_sessions_signed_out: otherSessionsEnded, tokens_revoked: revokeTokens },
      });
      const also = revokeTokens ? ' Every token and application access was revoked.' : '';
      return render(ctx, async () =>
        passwordPage(
          frame(ctx, {
            notice: `Your password was changed. ${otherSessionsEnded} other session(s) were signed out.${also}`,
          }),
        ),
      );
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      ctx.status = 422;
      return render(ctx, async () => passwordPage(frame(ctx, { error: error.message })));
    }
  });

  return router;
}
