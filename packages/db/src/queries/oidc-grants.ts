import type { Database } from '../connection';
import type { AdapterPayload, OidcModelRow } from '../oidc-adapter';
import { tokenHash } from '../token-hash';
import { ANNOUNCED_TOKEN_MODELS, notifyTokenRevocations } from '../token-revocation-notices';

/*
 * The member's settings pages and the consent lookup read oidc-provider's stored Grants
 * (oidc_models rows of model 'Grant'; the payload is oidc-provider's Grant format: `jti`,
 * `iat`, `resources` mapping each resource to its granted scope). The adapter itself is in
 * oidc-adapter.ts.
 */

/**
 * Deletes every token, code and grant matching the filter (a client's, or one grant of a member)
 * and announces the revoked access tokens, in one transaction.
 */
export async function revokeOidcModels(
  db: Database,
  filter: { clientId: string; accountId?: string; grantId?: string },
): Promise<number> {
  return db.transaction(async (trx) => {
    const query = trx('oidc_models').where({ client_id: filter.clientId }).whereIn('model', REVOCABLE_MODELS);
    if (filter.accountId !== undefined) query.andWhere({ account_id: filter.accountId });
    if (filter.grantId !== undefined)
      query.andWhere((where) =>
        where
          .where({ grant_id: filter.grantId })
          .orWhere({ model: 'Grant', id_hash: tokenHash(filter.grantId as string) }),
      );
    const deleted: Array<{ model: string; id_hash: string }> = await query.delete().returning(['model', 'id_hash']);
    await notifyTokenRevocations(
      trx,
      deleted.filter((row) => ANNOUNCED_TOKEN_MODELS.has(row.model)).map((row) => row.id_hash),
    );
    return deleted.filter((row) => row.model === 'Grant').length;
  });
}

const REVOCABLE_MODELS = ['AccessToken', 'RefreshToken', 'AuthorizationCode', 'Grant'];

/**
 * Deletes the client's unredeemed authorization codes issued for a redirect URI it no longer
 * registers: the token endpoint compares a code's redirect_uri with the one it was issued for,
 * not with the client's registration, so such a code would still be exchanged.
 */
export async function revokeCodesForRedirectUrisOtherThan(
  db: Database,
  clientId: string,
  redirectUris: readonly string[],
): Promise<number> {
  return (
    db('oidc_models')
      .where({ model: 'AuthorizationCode', client_id: clientId })
      // Not a consumed one: its row is how a replay of it is recognised (and its tokens revoked).
      .whereNull('consumed_at')
      .whereRaw("not (payload->>'redirectUri' = any(?::text[]))", [redirectUris as string[]])
      .delete()
  );
}

/** The member's most recent unexpired consent (Grant id) for a client. */
export async function findLatestGrantId(
  db: Database,
  accountId: string,
  clientId: string,
): Promise<string | undefined> {
  const row = await db<OidcModelRow>('oidc_models')
    .where({ model: 'Grant', account_id: accountId, client_id: clientId })
    .andWhere((where) => where.whereNull('expires_at').orWhere('expires_at', '>', new Date()))
    .orderBy('expires_at', 'desc')
    .first('payload');
  return row?.payload.jti;
}

/** An application the member approved: the consents of all its grants (one per browser that authorized it). */
export interface MemberGrantRow {
  client_id: string;
  client_name: string;
  scope: string;
  granted_at: Date;
}

/**
 * The applications a member approved: one row per client, with the scopes of all its unexpired
 * grants and the time of the first, and the client's name.
 * `builtInClients` (client id → name) adds clients the authorization server defines itself,
 * which have no oauth_clients row; any other grant without a row (personal access tokens) is
 * not an application the member authorized.
 */
export async function listGrantsOfMember(
  db: Database,
  accountId: string,
  builtInClients: Readonly<Record<string, string>> = {},
): Promise<MemberGrantRow[]> {
  const builtInIds = Object.keys(builtInClients);
  const rows = await db('oidc_models as g')
    .leftJoin('oauth_clients as c', 'c.client_id', 'g.client_id')
    .where({ 'g.model': 'Grant', 'g.account_id': accountId })
    .andWhere((where) => where.whereNotNull('c.client_id').orWhereIn('g.client_id', builtInIds))
    .andWhere((where) => where.whereNull('g.expires_at').orWhere('g.expires_at', '>', new Date()))
    .orderBy('g.expires_at', 'desc')
    .select<Array<{ payload: AdapterPayload; client_id: string; client_name: string | null }>>(
      'g.payload',
      'g.client_id',
      'c.name as client_name',
    );
  const byClient = new Map<string, { name: string; scopes: Set<string>; grantedAt: number }>();
  for (const row of rows) {
    const seen = byClient.get(row.client_id) ?? {
      name: row.client_name ?? builtInClients[row.client_id] ?? row.client_id,
      scopes: new Set<string>(),
      grantedAt: Number.POSITIVE_INFINITY,
    };
    const resources = (row.payload.resources as Record<string, string> | undefined) ?? {};
    for (const scope of Object.values(resources).flatMap((scopes) => scopes.split(' '))) {
      if (scope !== '') seen.scopes.add(scope);
    }
    seen.grantedAt = Math.min(seen.grantedAt, Number(row.payload.iat) * 1000);
    byClient.set(row.client_id, seen);
  }
  return [...byClient].map(([clientId, seen]) => ({
    client_id: clientId,
    client_name: seen.name,
    scope: [...seen.scopes].join(' '),
    granted_at: new Date(seen.grantedAt),
  }));
}
