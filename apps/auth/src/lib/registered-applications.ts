import {
  type Database,
  deleteOAuthClient,
  findMemberById,
  findOwnedOAuthClient,
  insertOAuthClient,
  listOAuthClientsOf,
  type OAuthClientRow,
  replaceOAuthClientSecret,
  revokeOidcModels,
} from '@contacts/db';
import { generateClientId, generateClientSecret, hashClientSecret, secretVersion } from './client-secrets';
import { InputError, requirePositiveInteger, requireText } from './validation';

/** What a member sees once, right after registering an application or rotating its secret. */
export interface RegisteredClient {
  client_id: string;
  client_secret?: string;
  redirect_uris: string[];
}

/** A C0 or C1 control character (NUL among them: PostgreSQL text cannot hold it). */
const isControl = (char: string) => {
  const code = char.charCodeAt(0);
  return code <= 0x1f || (code >= 0x7f && code <= 0x9f);
};

/** A line as it can be shown back in a message: control characters made visible, not echoed. */
const shown = (line: string) => [...line].map((char) => (isControl(char) ? '\uFFFD' : char)).join('');

/**
 * Redirect URIs are matched exactly, so they must be exact: one absolute URL, no fragment, no
 * user name or password, and https unless they point at the developer's own machine
 * (RFC 9700 §2.1 and §4.1.3; RFC 8252 §7.3). `value` is one line, trimmed here; it is stored as
 * entered, so every check is made on the raw string as well as on what URL parsing makes of it
 * (the parser drops a bare "#" and an empty "@", and percent-encodes what PostgreSQL would refuse).
 */
export function validateRedirectUri(value: string): string {
  const line = value.trim();
  if (/[\s,]/.test(line)) {
    throw new InputError(
      `"${shown(line)}" is not one URL: put each redirect URI on a line of its own, without spaces or commas.`,
      'redirect_uris',
    );
  }
  if ([...line].some(isControl)) {
    throw new InputError(`"${shown(line)}" must not contain control characters.`, 'redirect_uris');
  }
  if (line.includes('#')) throw new InputError(`"${line}" must not contain a fragment (#…).`, 'redirect_uris');
  let url: URL;
  try {
    url = new URL(line);
  } catch {
    throw new InputError(`"${line}" is not an absolute URL.`, 'redirect_uris');
  }
  if (url.username || url.password || /^[^:/?#]+:\/\/[^/?#]*@/.test(line)) {
    throw new InputError(`"${line}" must not contain a user name or password (user:password@…).`, 'redirect_uris');
  }
  const local = url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && local)) {
    throw new InputError(
      `"${line}" must use https (http is allowed only for localhost and 127.0.0.1).`,
      'redirect_uris',
    );
  }
  return line;
}

/** The form's textarea holds one URI per line; the CLI passes one per --redirect-uri. */
function redirectUriLines(value: unknown): string[] {
  const values = Array.isArray(value) ? value : [value];
  return values
    .flatMap((entry) => (typeof entry === 'string' ? entry.split(/\r\n|\r|\n/) : []))
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

export async function registerClient(
  db: Database,
  input: { ownerId: unknown; name: unknown; redirectUris: unknown; isPublic?: boolean; dpopBound?: boolean },
): Promise<RegisteredClient> {
  const ownerId = requirePositiveInteger(input.ownerId, 'owner', 'Owner');
  const name = requireText(input.name, 'name', 'Name', 100);
  const list = redirectUriLines(input.redirectUris);
  if (list.length === 0) throw new InputError('Add at least one redirect URI.', 'redirect_uris');
  if (list.length > 10) throw new InputError('At most 10 redirect URIs.', 'redirect_uris');
  const redirectUris = [...new Set(list.map(validateRedirectUri))];
  if (!(await findMemberById(db, ownerId))) throw new InputError(`No member has id ${ownerId}.`, 'owner');
  const secret = input.isPublic ? undefined : generateClientSecret();
  const row = await insertOAuthClient(db, {
    client_id: generateClientId(),
    owner_id: ownerId,
    name,
    secret_hash: secret ? hashClientSecret(secret) : null,
    redirect_uris: redirectUris,
    is_public: Boolean(input.isPublic),
    // [security] DPoP-required client (RFC 9449)
    dpop_bound_access_tokens: Boolean(input.dpopBound),
  });
  return { client_id: row.client_id, ...(secret ? { client_secret: secret } : {}), redirect_uris: row.redirect_uris };
}

export function listClients(db: Database, ownerId: number): Promise<OAuthClientRow[]> {
  return listOAuthClientsOf(db, ownerId);
}

/**
 * Gives a confidential application a new secret (returned, shown once) and revokes every token
 * issued to it, in one transaction. The secret is replaced only while it is still the one read
 * here, so of two rotations at once one wins; with `ifVersion` (the settings form's
 * secret_version, client-secrets.ts secretVersion), only while it is still the one the form was
 * rendered with, so that a form posted again rotates nothing. Undefined when the secret had
 * already changed: nothing was rotated or revoked, and the secret shown last keeps working.
 */
export async function rotateClientSecret(
  db: Database,
  ownerId: number,
  clientId: string,
  ifVersion?: string,
): Promise<RegisteredClient | undefined> {
  const client = await findOwnedOAuthClient(db, ownerId, clientId);
  if (!client) throw new InputError('No such application.', 'client_id');
  const current = client.secret_hash;
  if (client.is_public || !current) throw new InputError('A public application has no secret to rotate.', 'client_id');
  if (ifVersion !== undefined && ifVersion !== secretVersion(current)) return undefined;
  const secret = generateClientSecret();
  const rotated = await db.transaction(async (trx) => {
    if (!(await replaceOAuthClientSecret(trx, clientId, current, hashClientSecret(secret)))) return false;
    await revokeOidcModels(trx, { clientId });
    return true;
  });
  return rotated ? { client_id: clientId, client_secret: secret, redirect_uris: client.redirect_uris } : undefined;
}

/** Deletes the application and revokes every token, code and consent issued to it. */
export async function deleteClient(db: Database, ownerId: number, clientId: string): Promise<void> {
  const client = await findOwnedOAuthClient(db, ownerId, clientId);
  if (!client) throw new InputError('No such application.', 'client_id');
  await db.transaction(async (trx) => {
    await revokeOidcModels(trx, { clientId });
    await deleteOAuthClient(trx, clientId);
  });
}
