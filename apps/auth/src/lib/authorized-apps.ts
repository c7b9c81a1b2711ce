import { type Database, revokeOidcModels } from '@contacts/db';

/** Withdraws the member's consent for an application: its tokens stop working at once. */
export async function revokeAuthorizedApp(db: Database, memberId: number, clientId: string): Promise<boolean> {
  // PostgreSQL text cannot hold NUL (it refuses the query): no application has such an id.
  if (clientId.includes('\u0000')) return false;
  const grants = await revokeOidcModels(db, { clientId, accountId: String(memberId) });
  return grants > 0;
}
