import { type Database, findLatestGrantId } from '@contacts/db';
import type { KoaContextWithOIDC } from 'oidc-provider';

/**
 * The consent a member already gave this client. oidc-provider only looks in the browser
 * session by default; members expect an application they approved once not to ask again after
 * they sign in anew, so the member's latest grant for the client is looked up too.
 */
export function existingGrantLoader(db: Database) {
  return async function loadExistingGrant(ctx: KoaContextWithOIDC) {
    const { client, session, result, provider } = ctx.oidc;
    if (!client || !session?.accountId) return undefined;
    const fromSession = result?.consent?.grantId ?? session.grantIdFor(client.clientId);
    if (fromSession) {
      const grant = await provider.Grant.find(fromSession);
      if (grant) return grant;
    }
    const grantId = await findLatestGrantId(db, session.accountId, client.clientId);
    return grantId ? provider.Grant.find(grantId) : undefined;
  };
}
