import {
  type Database,
  deleteBrowserSessions,
  listClientIdsWithModelsOf,
  listPersonalAccessTokensOf,
  type MemberRecord,
  markPersonalAccessTokenRevoked,
  revokeOidcModels,
  setMemberDisabled,
} from '@contacts/db';

export interface DisabledMember {
  member: MemberRecord;
  /** Consents withdrawn (each with its codes and tokens), personal access tokens included. */
  revoked_grants: number;
  revoked_personal_tokens: number;
  /** Browser sessions of the member's pages signed out (oidc-provider's sessions end with them). */
  ended_sessions: number;
}

/**
 * Disables a member in one transaction: they can no longer sign in (the product's member
 * lookups skip disabled members), every consent, code and token issued for them is revoked
 * the way the settings pages revoke them (the contacts API is told, so cached introspections
 * end at once), their personal access tokens are marked revoked, and every browser session of
 * theirs is signed out (a disabled member's session is inert, but `member enable` would have
 * brought it back: a stolen one included).
 */
export async function disableMember(db: Database, memberId: number): Promise<DisabledMember | undefined> {
  return db.transaction(async (trx) => {
    const member = await setMemberDisabled(trx, memberId, true);
    if (!member) return undefined;
    let grants = 0;
    for (const clientId of await listClientIdsWithModelsOf(trx, memberId)) {
      grants += await revokeOidcModels(trx, { clientId, accountId: String(memberId) });
    }
    let personalTokens = 0;
    for (const token of await listPersonalAccessTokensOf(trx, memberId)) {
      if (await markPersonalAccessTokenRevoked(trx, token.id)) personalTokens += 1;
    }
    const sessions = await deleteBrowserSessions(trx, memberId);
    return { member, revoked_grants: grants, revoked_personal_tokens: personalTokens, ended_sessions: sessions };
  });
}

/** Lets a disabled member sign in again. Nothing revoked or signed out comes back: they start afresh. */
export function enableMember(db: Database, memberId: number): Promise<MemberRecord | undefined> {
  return setMemberDisabled(db, memberId, false);
}
