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
