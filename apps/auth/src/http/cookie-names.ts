/**
 * The names of the cookies this server sets at Path=/, each defined once. With an https
 * PUBLIC_URL they carry the `__Host-` prefix (RFC 6265bis §4.1.3.2): a browser then keeps such a
 * cookie only when it was set over https by this very host, Secure, with Path=/ and no Domain. A
 * page on a sibling subdomain, or an injected plain-http answer, can no longer plant one
 * ("cookie tossing"), which would otherwise let an attacker fix a browser's CSRF seed to one whose
 * form token they know, or plant a session. Over plain http (local development) browsers refuse
 * the prefix, so the names stay bare.
 */
export interface CookieNames {
  /** The per-browser seed of the pages' CSRF tokens (http/csrf.ts). */
  csrfSeed: string;
  /** The member's sign-in to the pages (lib/member-sessions.ts). */
  memberSession: string;
  /** oidc-provider's own browser session (its `cookies.names.session`). */
  providerSession: string;
}

export function cookieNames(secure: boolean): CookieNames {
  const named = (name: string) => (secure ? `__Host-${name}` : name);
  return {
    csrfSeed: named('csrf_seed'),
    memberSession: named('member_session'),
    providerSession: named('_session'),
  };
}
