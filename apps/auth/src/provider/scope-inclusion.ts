import { withIncludedScopes, withoutIncludedScopes } from '@contacts/schemas';
import type Provider from 'oidc-provider';

/**
 * Teaches oidc-provider that `*` includes contacts:read and contacts:write (INCLUDED_SCOPES), so
 * that a refresh may narrow a `*` grant (RFC 6749 §6: "scope … MUST NOT include any scope not
 * originally granted", so fewer is allowed). oidc-provider compares scope names literally: its
 * refresh_token grant (lib/actions/grants/refresh_token.js) refuses every requested scope that is
 * not in the refresh token's `scopes`, and gives the access token the requested scopes the Grant
 * holds (`getResourceScopeFiltered`); both are widened here by what `*` includes, nothing else.
 *
 * - The rotated refresh token keeps its own `scope` string (`*`), as RFC 6749 §6 wants: a later
 *   refresh without a scope, or with `*`, gets everything again.
 * - A scope string issued never names a scope that another in it includes: a refresh without a
 *   scope still answers `*`, not `* contacts:read contacts:write`.
 * - A scope that no granted scope includes is still `invalid_scope`; nothing widens a narrower
 *   grant (contacts:read never becomes `*`).
 * - The authorization endpoint filters the Grant the same way when it issues a code; there the
 *   consent page has already added every requested scope, so only the rule above changes
 *   anything (a request for `* contacts:read` gets `*`).
 *
 * Per provider: each has model classes of its own (oidc-provider's `provider.Grant` getter).
 */
export function teachScopeInclusion(provider: Provider): void {
  Object.defineProperty(provider.RefreshToken.prototype, 'scopes', {
    configurable: true,
    get(this: InstanceType<Provider['RefreshToken']>): Set<string> {
      return withIncludedScopes((this.scope ?? '').split(' ').filter(Boolean));
    },
  });

  const grantedLiterally = provider.Grant.prototype.getResourceScopeFiltered;
  provider.Grant.prototype.getResourceScopeFiltered = function getResourceScopeFiltered(resource, filter) {
    const requested = [...filter];
    const held = withIncludedScopes(this.getResourceScope(resource).split(' ').filter(Boolean));
    const literal = grantedLiterally.call(this, resource, filter).split(' ').filter(Boolean);
    const included = requested.filter((scope) => held.has(scope) && !literal.includes(scope));
    return withoutIncludedScopes([...literal, ...included]).join(' ');
  };
}
