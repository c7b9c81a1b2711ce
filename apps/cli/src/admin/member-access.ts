import {
  type Database,
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
}

/**
 * Disables a member in one transaction: they can no longer sign in (the product's member
 * lookups skip disabled members), every consent, code and token issued for them is revoked
 * the way the settings pages revoke them (the contacts API is told, so cached introspections
 * end at once), and their personal access tokens are marked revoked.
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
    return { member, revoked_grants: grants, revoked_personal_tokens: personalTokens };
  });
}

/** Lets a disabled member sign in again. Nothing revoked comes back: they start afresh. */
export function enableMember(db: Database, memberId: number): Promise<MemberRecord | undefined> {
  return setMemberDisabled(db, memberId, false);
}
