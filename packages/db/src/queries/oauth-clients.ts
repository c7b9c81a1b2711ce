import type { Database } from '../connection';
import { preparedAs } from '../prepared';

/**
 * The PostgreSQL NOTIFY channel on which a changed or deleted application's client_id is announced
 * when the change commits (a trigger on oauth_clients: migration 20261123040000_client_change_notices).
 */
export const OAUTH_CLIENT_CHANGES_CHANNEL = 'oauth_client_changes';

export interface OAuthClientRow {
  client_id: string;
  owner_id: number;
  name: string;
  secret_hash: string | null;
  redirect_uris: string[];
  is_public: boolean;
  /** The client must bind its tokens to a DPoP key (RFC 9449). */
  dpop_bound_access_tokens: boolean;
  created_at: Date;
  updated_at: Date;
}

const CLIENT_COLUMNS: Array<keyof OAuthClientRow> = [
  'client_id',
  'owner_id',
  'name',
  'secret_hash',
  'redirect_uris',
  'is_public',
  'dpop_bound_access_tokens',
  'created_at',
  'updated_at',
];

export async function insertOAuthClient(
  db: Database,
  client: Pick<OAuthClientRow, 'client_id' | 'owner_id' | 'name' | 'secret_hash' | 'redirect_uris' | 'is_public'> &
    Partial<Pick<OAuthClientRow, 'dpop_bound_access_tokens'>>,
): Promise<OAuthClientRow> {
  const [row] = await db<OAuthClientRow>('oauth_clients').insert(client).returning(CLIENT_COLUMNS);
  return row as OAuthClientRow;
}

export async function findOAuthClient(db: Database, clientId: string): Promise<OAuthClientRow | undefined> {
  // PostgreSQL text cannot hold NUL (it refuses the query): no client has such an id.
  if (clientId.includes('\u0000')) return undefined;
  // Every token request and introspection looks its client up: a prepared statement.
  return db('oauth_clients')
    .where({ client_id: clientId })
    .first<OAuthClientRow | undefined>(CLIENT_COLUMNS)
    .options(preparedAs('oauth_clients.find'));
}

/** The client, only when this member registered it. */
export async function findOwnedOAuthClient(
  db: Database,
  ownerId: number,
  clientId: string,
): Promise<OAuthClientRow | undefined> {
  if (clientId.includes('\u0000')) return undefined;
  return db<OAuthClientRow>('oauth_clients').where({ client_id: clientId, owner_id: ownerId }).first(CLIENT_COLUMNS);
}

export async function countOAuthClientsOf(db: Database, ownerId: number): Promise<number> {
  const row = await db('oauth_clients').where({ owner_id: ownerId }).count<{ count: string }>({ count: '*' }).first();
  return Number(row?.count ?? 0);
}

export async function listOAuthClientsOf(db: Database, ownerId: number): Promise<OAuthClientRow[]> {
  return db<OAuthClientRow>('oauth_clients').select(CLIENT_COLUMNS).where({ owner_id: ownerId }).orderBy('created_at');
}

/**
 * Replaces the secret only if it is still `expectedHash`: of two rotations at once, one
 * rotates and the other finds the secret already changed (false).
 */
export async function replaceOAuthClientSecret(
  db: Database,
  clientId: string,
  expectedHash: string,
  secretHash: string,
): Promise<boolean> {
  const updated = await db('oauth_clients')
    .where({ client_id: clientId, secret_hash: expectedHash })
    .update({ secret_hash: secretHash, updated_at: db.fn.now() });
  return updated > 0;
}

/**
 * Changes what an owner may edit of an application (its name and redirect URIs); false when the
 * member owns no such application. The trigger on oauth_clients announces the change.
 */
export async function updateOwnedOAuthClient(
  db: Database,
  ownerId: number,
  clientId: string,
  changes: Pick<OAuthClientRow, 'name' | 'redirect_uris'>,
): Promise<boolean> {
  if (clientId.includes('\u0000')) return false;
  const updated = await db('oauth_clients')
    .where({ client_id: clientId, owner_id: ownerId })
    .update({ ...changes, updated_at: db.fn.now() });
  return updated > 0;
}

/**
 * Marks the client as registered by this settings form (migration 20261124000000_creation_form_ids);
 * fails with a unique violation (isDuplicateFormId) when the form already registered one.
 */
export async function setOAuthClientFormId(db: Database, clientId: string, formId: string): Promise<void> {
  await db('oauth_clients').where({ client_id: clientId }).update({ form_id: formId });
}

/** The client this member registered from this settings form, if any. */
export async function findOAuthClientByFormId(
  db: Database,
  ownerId: number,
  formId: string,
): Promise<OAuthClientRow | undefined> {
  return db('oauth_clients')
    .where({ owner_id: ownerId, form_id: formId })
    .first<OAuthClientRow | undefined>(CLIENT_COLUMNS);
}

export async function deleteOAuthClient(db: Database, clientId: string): Promise<void> {
  await db('oauth_clients').where({ client_id: clientId }).delete();
}

/** One page of clients by client_id (optionally one owner's): up to `limit` + 1 rows. */
export async function listOAuthClientsPage(
  db: Database,
  page: { limit: number; after?: string; ownerId?: number },
): Promise<OAuthClientRow[]> {
  const query = db<OAuthClientRow>('oauth_clients')
    .select(CLIENT_COLUMNS)
    .orderBy('client_id')
    .limit(page.limit + 1);
  if (page.after !== undefined) query.where('client_id', '>', page.after);
  if (page.ownerId !== undefined) query.where({ owner_id: page.ownerId });
  return query;
}
