import { type Database, findLatestGrantId } from '@contacts/db';
import type { KoaContextWithOIDC } from 'oidc-provider';

/**
 * The consent a member already gave this client. oidc-provider only looks in the browser
 * session by default; members expect an application they approved once not to ask again after
 * they sign in anew, so the member's latest grant for the client is looked up too.
 *
 * That grant's consent is copied into a new grant for this browser session rather than reused:
 * tokens are revoked by grant (RFC 7009 §2.1: revoking a refresh token ends the access tokens of
 * its grant; refresh-token reuse ends the whole grant), so with one grant per member and client,
 * an app signing out on a phone, or a stolen refresh token replayed from it, ended the member's
 * sessions of the same app on every other device. One grant per browser session that authorized
 * the client: the same browser asking again keeps its grant (the session names it).
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
    const rememberedId = await findLatestGrantId(db, session.accountId, client.clientId);
    const remembered = rememberedId ? await provider.Grant.find(rememberedId) : undefined;
    if (!remembered) return undefined;
    // The copy ends when the consent it copies does (GRANT_TTL counts from the approval).
    // oidc-provider's tokens take `expiresIn` (lib/models/base_token.js); its type definitions omit it.
    const init: ConstructorParameters<typeof provider.Grant>[0] & { expiresIn: number } = {
      accountId: session.accountId,
      clientId: client.clientId,
      expiresIn: Math.max(1, remembered.remainingTTL),
    };
    const grant = new provider.Grant(init);
    for (const [resource, scope] of Object.entries(remembered.resources ?? {})) {
      if (typeof scope === 'string' && scope !== '') grant.addResourceScope(resource, scope);
    }
    await grant.save();
    return grant;
  };
}
