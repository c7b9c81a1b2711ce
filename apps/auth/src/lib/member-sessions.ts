import { randomBytes } from 'node:crypto';
import {
  type Database,
  deleteMemberSession,
  findMemberById,
  findMemberSession,
  insertMemberSession,
  type PublicMember,
  tokenHash,
} from '@contacts/db';
import type { Context } from 'koa';
import { cookieNames } from '../http/cookie-names';

const LIFETIME_MS = 14 * 24 * 60 * 60 * 1000;

/**
 * The signed-in member of the auth app's own pages (sign-in, developer settings). The cookie
 * holds a random id; the database holds only its hash. Over https the cookie is
 * `__Host-member_session` (http/cookie-names.ts).
 */
export interface MemberSessions {
  /** Signs `memberId` in on this browser, under a fresh id. */
  start(ctx: Context, memberId: number): Promise<void>;
  /** The member this browser is signed in as, if any. */
  current(ctx: Context): Promise<PublicMember | undefined>;
  /** [security] The hash of this browser's session id (the key of its member_sessions row), if it has one. */
  currentIdHash(ctx: Context): string | undefined;
  /** Signs this browser out. */
  end(ctx: Context): Promise<void>;
}

export function memberSessions(db: Database, secure: boolean): MemberSessions {
  const cookie = cookieNames(secure).memberSession;
  // The same attributes when set and when cleared: a browser ignores a removal of a __Host- cookie that is not Secure.
  const attributes = { httpOnly: true, sameSite: 'lax', secure, signed: true, overwrite: true } as const;
  const sessionId = (ctx: Context) => ctx.cookies.get(cookie, { signed: true });

  return {
    async start(ctx, memberId) {
      // [security] A fresh id at every sign-in (no session fixation); the session this browser had ends.
      const previous = sessionId(ctx);
      if (previous) await deleteMemberSession(db, tokenHash(previous));
      const id = randomBytes(32).toString('base64url');
      const expiresAt = new Date(Date.now() + LIFETIME_MS);
      await insertMemberSession(db, {
        id_hash: tokenHash(id),
        member_id: memberId,
        expires_at: expiresAt,
        // [security] shown on the member's list of sessions
        user_agent: ctx.get('user-agent').slice(0, 300) || null,
        ip: ctx.ip || null,
      });
      ctx.cookies.set(cookie, id, { ...attributes, expires: expiresAt });
    },

    async current(ctx) {
      const id = sessionId(ctx);
      if (!id) return undefined;
      const session = await findMemberSession(db, tokenHash(id));
      if (!session) return undefined;
      const member = await findMemberById(db, session.member_id);
      return member ? { id: member.id, email: member.email, name: member.name } : undefined;
    },

    currentIdHash(ctx) {
      const id = sessionId(ctx);
      return id ? tokenHash(id) : undefined;
    },

    async end(ctx) {
      const id = sessionId(ctx);
      if (id) await deleteMemberSession(db, tokenHash(id));
      ctx.cookies.set(cookie, null, attributes);
    },
  };
}
