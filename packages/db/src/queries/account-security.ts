import type { Database } from '../connection';
import { notifyTokenRevocations } from '../token-revocation-notices';

/** A browser session as the member's list of sessions shows it. */
export interface BrowserSessionRow {
  id_hash: string;
  created_at: Date;
  expires_at: Date;
  user_agent: string | null;
  ip: string | null;
}

/** The member's unexpired browser sessions of the auth app's pages, newest first. */
export async function listBrowserSessionsOf(db: Database, memberId: number): Promise<BrowserSessionRow[]> {
  return db('member_sessions')
    .where({ member_id: memberId })
    .andWhere('expires_at', '>', db.fn.now())
    .orderBy('created_at', 'desc')
    .select<BrowserSessionRow[]>('id_hash', 'created_at', 'expires_at', 'user_agent', 'ip');
}

/** Deletes one of the member's sessions; false when the member has no such session. */
export async function deleteBrowserSessionOf(db: Database, memberId: number, idHash: string): Promise<boolean> {
  return (await db('member_sessions').where({ member_id: memberId, id_hash: idHash }).delete()) > 0;
}

/**
 * Signs the member out everywhere (but the session `except`, the hash of its id): the auth app's
 * sessions and oidc-provider's (which an authorization request would otherwise reuse). Returns
 * how many app sessions ended.
 */
export async function deleteBrowserSessions(
  db: Database,
  memberId: number,
  options: { except?: string } = {},
): Promise<number> {
  const sessions = db('member_sessions').where({ member_id: memberId });
  if (options.except !== undefined) sessions.andWhereNot({ id_hash: options.except });
  const ended = await sessions.delete();
  await db('oidc_models')
    .where({ model: 'Session', account_id: String(memberId) })
    .delete();
  return ended;
}

/**
 * Revokes every token and consent the member has, personal tokens included, and tells every
 * contacts-api process (within the caller's transaction, so the notice goes out on commit).
 */
export async function revokeEverythingOf(db: Database, memberId: number): Promise<void> {
  await db('personal_access_tokens').where({ member_id: memberId }).whereNull('revoked_at').update({
    revoked_at: db.fn.now(),
  });
  const deleted: Array<{ model: string; id_hash: string }> = await db('oidc_models')
    .where({ account_id: String(memberId) })
    .whereIn('model', ['AccessToken', 'RefreshToken', 'AuthorizationCode', 'Grant'])
    .delete()
    .returning(['model', 'id_hash']);
  await notifyTokenRevocations(
    db,
    deleted.filter((row) => row.model === 'AccessToken').map((row) => row.id_hash),
  );
}
