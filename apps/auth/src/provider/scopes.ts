/**
 * The scopes of the contacts API, with the plain words the consent page shows for each.
 * `*` is the original service's "everything" scope, kept for existing integrations.
 */
export const SCOPE_DESCRIPTIONS: Readonly<Record<string, string>> = {
  'contacts:read': 'See your contacts, your groups and the business categories',
  'contacts:write': 'Create, change and delete your contacts',
  '*': 'Full access to your contacts: see, create, change and delete them',
};

export const SUPPORTED_SCOPES = Object.keys(SCOPE_DESCRIPTIONS);

/**
 * The one resource server (RFC 8707) that tokens are issued for. Every authorization request
 * without a `resource` parameter is for it, so plain OAuth 2.0 clients need not know about it.
 */
export const CONTACTS_API_RESOURCE = 'urn:member-contacts:contacts-api';

export function unknownScopes(scope: string | undefined): string[] {
  return (scope ?? '').split(' ').filter((value) => value !== '' && !SUPPORTED_SCOPES.includes(value));
}

/**
 * The scopes each scope includes: `*` is everything, so a grant of `*` holds contacts:read and
 * contacts:write (the contacts API reads it so too). Used to narrow a `*` grant at refresh.
 */
export const INCLUDED_SCOPES: Readonly<Record<string, readonly string[]>> = {
  '*': ['contacts:read', 'contacts:write'],
};

/** The scopes named, and every scope one of them includes. */
export function withIncludedScopes(scopes: Iterable<string>): Set<string> {
  const all = new Set<string>();
  for (const scope of scopes) {
    all.add(scope);
    for (const included of INCLUDED_SCOPES[scope] ?? []) all.add(included);
  }
  return all;
}

/** The scopes without those another of them already includes (`* contacts:read` is `*`). */
export function withoutIncludedScopes(scopes: readonly string[]): string[] {
  const included = new Set(scopes.flatMap((scope) => INCLUDED_SCOPES[scope] ?? []));
  return scopes.filter((scope) => !included.has(scope));
}
