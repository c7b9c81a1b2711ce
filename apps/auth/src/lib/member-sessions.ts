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

/**
 * The signed-in member of the auth app's own pages (sign-in, developer settings). The cookie
 * holds a random id; the database holds only its hash.
 */
const COOKIE = 'member_session';
const LIFETIME_MS = 14 * 24 * 60 * 60 * 1000;

export async function startMemberSession(ctx: Context, db: Database, memberId: number, secure: boolean): Promise<void> {
  // [security] A fresh id at every sign-in (no session fixation); the session this browser had ends.
  const previous = ctx.cookies.get(COOKIE, { signed: true });
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
  ctx.cookies.set(COOKIE, id, {
    httpOnly: true,
    sameSite: 'lax',
    secure,
    expires: expiresAt,
    signed: true,
    overwrite: true,
  });
}

export async function currentMember(ctx: Context, db: Database): Promise<PublicMember | undefined> {
  const id = ctx.cookies.get(COOKIE, { signed: true });
  if (!id) return undefined;
  const session = await findMemberSession(db, tokenHash(id));
  if (!session) return undefined;
  const member = await findMemberById(db, session.member_id);
  return member ? { id: member.id, email: member.email, name: member.name } : undefined;
}

/** [security] The hash of this browser's session id (the key of its member_sessions row), if it has one. */
export function currentSessionIdHash(ctx: Context): string | undefined {
  const id = ctx.cookies.get(COOKIE, { signed: true });
  return id ? tokenHash(id) : undefined;
}

export async function endMemberSession(ctx: Context, db: Database): Promise<void> {
  const id = ctx.cookies.get(COOKIE, { signed: true });
  if (id) await deleteMemberSession(db, tokenHash(id));
  ctx.cookies.set(COOKIE, null, { signed: true });
}
