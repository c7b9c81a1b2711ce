import {
  countOAuthClientsOf,
  type Database,
  deleteOAuthClient,
  findMemberById,
  findOwnedOAuthClient,
  insertOAuthClient,
  listOAuthClientsOf,
  lockMember,
  type OAuthClientRow,
  replaceOAuthClientSecret,
  revokeCodesForRedirectUrisOtherThan,
  revokeOidcModels,
  updateOwnedOAuthClient,
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

/** Loopback hosts, as oidc-provider knows them (its consts/client_attributes.js LOOPBACKS). */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

const isLoopbackHttp = (url: URL) => url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);

/**
 * A private-use URI scheme a native app claims on its device, in reverse domain-name form
 * (RFC 8252 §7.1: `com.example.app:/oauth2redirect`); the dot keeps out every scheme a browser
 * would run itself (javascript:, data:, file:, …).
 */
const isPrivateUseScheme = (url: URL) => /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/i.test(url.protocol);

/**
 * An application is a native app (RFC 8252) when it is public and redirects to the device
 * itself: a loopback address, on whatever port it listens on at the time (§7.3: the port may
 * vary per request), or a private-use scheme (§7.1). oidc-provider allows the port to vary only
 * for `application_type: native`, whose redirect URIs it requires to be loopback http, a
 * private-use scheme or https on another host.
 */
export function isNativeApplication(client: { is_public: boolean; redirect_uris: string[] }): boolean {
  if (!client.is_public) return false;
  const urls = client.redirect_uris.map((uri) => new URL(uri));
  const native = (url: URL) => isLoopbackHttp(url) || isPrivateUseScheme(url);
  return (
    urls.some(native) &&
    urls.every((url) => native(url) || (url.protocol === 'https:' && !LOOPBACK_HOSTS.has(url.hostname)))
  );
}

/**
 * The longest redirect URI: an authorization request carries it, percent-encoded, in its URL
 * beside the other parameters, and a URL of tens of kilobytes is refused before it reaches any
 * route (Node's 16 KB header limit: 431), so a longer one would register an application that can
 * never be authorized. 2,000 is what browsers and proxies have long been known to pass.
 */
export const MAX_REDIRECT_URI_LENGTH = 2000;

/**
 * Redirect URIs are matched exactly, so they must be exact: one absolute URL of at most
 * MAX_REDIRECT_URI_LENGTH characters, no fragment, no user name or password, every % a
 * percent-encoding (RFC 3986 §2.1), no wildcard host or port 0 (nothing could match or answer
 * them), and https unless they point at the developer's own machine
 * (RFC 9700 §2.1 and §4.1.3; RFC 8252 §7.3) or, for a public application, at a private-use scheme
 * of a native app (RFC 8252 §7.1). `value` is one line, trimmed here; it is stored as
 * entered, so every check is made on the raw string as well as on what URL parsing makes of it
 * (the parser drops a bare "#" and an empty "@", and percent-encodes what PostgreSQL would refuse).
 * Last, it must already be written as the WHATWG URL parser writes it (lower-case scheme and host,
 * a Unicode host in punycode, no default port, `"<>` and non-ASCII percent-encoded, dot segments
 * resolved): that is the string client libraries and browsers send, and matching stays exact
 * (RFC 9700 §4.1.3), so another spelling would register and never match. It is refused with the
 * form to register instead, rather than silently rewritten into a URI its developer did not type.
 */
export function validateRedirectUri(value: string, { isPublic = false }: { isPublic?: boolean } = {}): string {
  const line = value.trim();
  if (line.length > MAX_REDIRECT_URI_LENGTH) {
    // Not echoed whole: the message is shown on the form.
    throw new InputError(
      `"${shown(line.slice(0, 40))}…" is longer than ${MAX_REDIRECT_URI_LENGTH} characters.`,
      'redirect_uris',
    );
  }
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
  if (/%(?![0-9A-Fa-f]{2})/.test(line)) {
    throw new InputError(`"${line}" has a % that is no percent-encoding (%XX, two hex digits).`, 'redirect_uris');
  }
  let url: URL;
  try {
    url = new URL(line);
  } catch {
    throw new InputError(`"${line}" is not an absolute URL.`, 'redirect_uris');
  }
  if (url.username || url.password || /^[^:/?#]+:\/\/[^/?#]*@/.test(line)) {
    throw new InputError(`"${line}" must not contain a user name or password (user:password@…).`, 'redirect_uris');
  }
  // URL parsing keeps "*" in a host name: the URI would be stored, and no redirect could ever match it.
  if (url.hostname.includes('*')) {
    throw new InputError(
      `"${line}" has a * in its host: redirect URIs are matched exactly, so register each one in full.`,
      'redirect_uris',
    );
  }
  if (url.port === '0') throw new InputError(`"${line}" names port 0, which nothing listens on.`, 'redirect_uris');
  if (url.protocol !== 'https:' && !isLoopbackHttp(url) && !(isPublic && isPrivateUseScheme(url))) {
    throw new InputError(
      `"${line}" must use https (http is allowed only for localhost, 127.0.0.1 and [::1]; a public app may also use a private-use scheme such as com.example.app:/callback).`,
      'redirect_uris',
    );
  }
  if (url.href !== line) {
    if (url.href.length > MAX_REDIRECT_URI_LENGTH) {
      throw new InputError(
        `"${line.slice(0, 40)}…" is longer than ${MAX_REDIRECT_URI_LENGTH} characters once written as applications send it.`,
        'redirect_uris',
      );
    }
    throw new InputError(
      `"${line}" is not written as applications send it, and redirect URIs are matched character for character: register "${url.href}" instead.`,
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

/** The most redirect URIs one application may register. */
export const MAX_REDIRECT_URIS = 10;

/** The most applications one member may register: their settings page lists them all. */
export const MAX_APPLICATIONS_PER_MEMBER = 100;

/** What an owner writes about an application, when registering it and when editing it. */
export interface ApplicationDetailsInput {
  name: unknown;
  redirectUris: unknown;
}

function applicationDetails(
  input: ApplicationDetailsInput,
  isPublic: boolean,
): { name: string; redirectUris: string[] } {
  const name = requireText(input.name, 'name', 'Name', 100);
  const list = redirectUriLines(input.redirectUris);
  if (list.length === 0) throw new InputError('Add at least one redirect URI.', 'redirect_uris');
  if (list.length > MAX_REDIRECT_URIS) {
    throw new InputError(`At most ${MAX_REDIRECT_URIS} redirect URIs.`, 'redirect_uris');
  }
  const redirectUris = [...new Set(list.map((line) => validateRedirectUri(line, { isPublic })))];
  // A native app's set (a private-use scheme among them) cannot also hold https on a loopback
  // host: oidc-provider would refuse the whole client, and every authorization request with it.
  const urls = redirectUris.map((uri) => new URL(uri));
  if (urls.some(isPrivateUseScheme)) {
    const loopbackHttps = urls.find((url) => url.protocol === 'https:' && LOOPBACK_HOSTS.has(url.hostname));
    if (loopbackHttps) {
      throw new InputError(
        `"${loopbackHttps.href}" cannot be registered beside a private-use scheme: use http for a loopback address.`,
        'redirect_uris',
      );
    }
  }
  return { name, redirectUris };
}

export async function registerClient(
  db: Database,
  input: ApplicationDetailsInput & { ownerId: unknown; isPublic?: boolean; dpopBound?: boolean },
): Promise<RegisteredClient> {
  const ownerId = requirePositiveInteger(input.ownerId, 'owner', 'Owner');
  const { name, redirectUris } = applicationDetails(input, Boolean(input.isPublic));
  if (!(await findMemberById(db, ownerId))) throw new InputError(`No member has id ${ownerId}.`, 'owner');
  const secret = input.isPublic ? undefined : generateClientSecret();
  const row = await db.transaction(async (trx) => {
    // Counted under the member's lock: two registrations at once cannot both take the last place.
    await lockMember(trx, ownerId);
    if ((await countOAuthClientsOf(trx, ownerId)) >= MAX_APPLICATIONS_PER_MEMBER) {
      throw new InputError(
        `A member can register at most ${MAX_APPLICATIONS_PER_MEMBER} applications; delete one you no longer use first.`,
        'name',
      );
    }
    return insertOAuthClient(trx, {
      client_id: generateClientId(),
      owner_id: ownerId,
      name,
      secret_hash: secret ? hashClientSecret(secret) : null,
      redirect_uris: redirectUris,
      is_public: Boolean(input.isPublic),
      // [security] DPoP-required client (RFC 9449)
      dpop_bound_access_tokens: Boolean(input.dpopBound),
    });
  });
  return { client_id: row.client_id, ...(secret ? { client_secret: secret } : {}), redirect_uris: row.redirect_uris };
}

export function listClients(db: Database, ownerId: number): Promise<OAuthClientRow[]> {
  return listOAuthClientsOf(db, ownerId);
}

/** One of the member's applications; undefined for any other client id. */
export function findClientOf(db: Database, ownerId: number, clientId: string): Promise<OAuthClientRow | undefined> {
  return findOwnedOAuthClient(db, ownerId, clientId);
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

/**
 * Renames an application and replaces its redirect URIs. Its id, secret, tokens and consents
 * stay: an authorization request must name one of the new URIs from now on, while the tokens
 * already issued keep working (rotate the secret or delete the application to end those).
 */
export async function updateClient(
  db: Database,
  ownerId: number,
  clientId: string,
  input: ApplicationDetailsInput,
): Promise<void> {
  const client = await findOwnedOAuthClient(db, ownerId, clientId);
  if (!client) throw new InputError('No such application.', 'client_id');
  const { name, redirectUris } = applicationDetails(input, client.is_public);
  await db.transaction(async (trx) => {
    if (!(await updateOwnedOAuthClient(trx, ownerId, clientId, { name, redirect_uris: redirectUris }))) {
      throw new InputError('No such application.', 'client_id');
    }
    // A redirect URI taken away takes its codes not yet exchanged with it.
    await revokeCodesForRedirectUrisOtherThan(trx, clientId, redirectUris);
  });
}

/** Deletes the application and revokes every token, code and consent issued to it; answers its name. */
export async function deleteClient(db: Database, ownerId: number, clientId: string): Promise<{ name: string }> {
  const client = await findOwnedOAuthClient(db, ownerId, clientId);
  if (!client) throw new InputError('No such application.', 'client_id');
  await db.transaction(async (trx) => {
    await revokeOidcModels(trx, { clientId });
    await deleteOAuthClient(trx, clientId);
  });
  return { name: client.name };
}
