/**
 * The scopes of the contacts API, with the plain words the consent page shows for each.
 * `*` is the original service's "everything" scope, kept for existing integrations.
 */
export const SCOPE_DESCRIPTIONS: Readonly<Record<string, string>> = {
  'contacts:read': 'See your contacts, your groups and the business categories',
  // Plain about what a write answers: the contract returns the contact written (v3's shapes too),
  // so an application allowed to change a contact sees it, even without contacts:read.
  'contacts:write': 'Create, change and delete your contacts (an app that can change a contact also sees it)',
  '*': 'Full access to your contacts: see, create, change and delete them',
};

export const SUPPORTED_SCOPES = Object.keys(SCOPE_DESCRIPTIONS);

/** What a scope lets an application do, in the words the consent page shows (its name when unknown). */
export function scopeDescription(scope: string): string {
  return SCOPE_DESCRIPTIONS[scope] ?? scope;
}

/** The one resource server (RFC 8707) that tokens are issued for: defined with the API's contract. */
export { CONTACTS_API_RESOURCE } from '@contacts/schemas';

/**
 * OpenID Connect's scope for refresh tokens (Core §11), which generic client libraries send, often
 * with `prompt=consent`. Every authorization here gets a refresh token, so it asks for nothing
 * more: ignored at the authorization endpoint, never granted (so it is still `invalid_scope` at a
 * refresh). oidc-provider drops it itself unless the request has `prompt=consent`.
 */
const IGNORED_AUTHORIZATION_SCOPES: readonly string[] = ['offline_access'];

/** Scopes of an authorization request that this server neither grants nor ignores. */
export function unknownScopes(scope: string | undefined): string[] {
  return (scope ?? '')
    .split(' ')
    .filter(
      (value) => value !== '' && !SUPPORTED_SCOPES.includes(value) && !IGNORED_AUTHORIZATION_SCOPES.includes(value),
    );
}

/** The scopes of an authorization request that a consent grants (those ignored left out), in its order. */
export function grantableScopes(scope: unknown): string[] {
  return typeof scope === 'string' ? scope.split(' ').filter((value) => SUPPORTED_SCOPES.includes(value)) : [];
}
