import { interactionPolicy, type KoaContextWithOIDC } from 'oidc-provider';
import type { MemberSessions } from '../lib/member-sessions';

const { Check, base } = interactionPolicy;

/** Why the login prompt is asked for although oidc-provider still has a session (see below). */
export const MEMBER_SIGNED_OUT = 'member_signed_out';

/**
 * [security] oidc-provider keeps a browser session of its own (its `_session` cookie and a
 * Session row) beside the member's sign-in to this site (member_sessions, the pages' session).
 * The member's sign-in is the one that counts: signing out (here, from another browser's
 * session list, or by changing the password) must also stop /oauth/authorize from issuing
 * codes in that browser, and a browser now signed in as someone else must not act as the
 * previous member. So the login prompt is also requested whenever the provider's session does
 * not match the browser's current member session, and that stale provider session is signed out
 * first (what its own end_session would do), so that the sign-in that follows starts afresh:
 * under a new session id, with none of the previous member's authorizations.
 */
export function memberSessionPolicy(memberSessions: MemberSessions): ReturnType<typeof base> {
  const policy = base();
  const login = policy.get('login');
  if (!login) throw new Error('oidc-provider has no login prompt');
  login.checks.add(
    new Check(MEMBER_SIGNED_OUT, 'the member is no longer signed in to this site', async (ctx: KoaContextWithOIDC) => {
      const accountId = ctx.oidc.session?.accountId;
      // No provider session: no_session asks already. A login just made in this interaction counts
      // only while its member is still signed in here (they may have signed out since).
      if (!accountId) return Check.NO_NEED_TO_PROMPT;
      const member = await memberSessions.current(ctx);
      if (member && String(member.id) === accountId) return Check.NO_NEED_TO_PROMPT;
      signOutProviderSession(ctx);
      return Check.REQUEST_PROMPT;
    }),
  );
  return policy;
}

function signOutProviderSession(ctx: KoaContextWithOIDC): void {
  const { session } = ctx.oidc;
  if (!session) return;
  // Deleted rather than set to undefined: oidc-provider's session proxy refuses an empty accountId.
  for (const field of ['accountId', 'loginTs', 'amr', 'acr', 'authorizations'] as const) delete session[field];
  session.resetIdentifier();
}
