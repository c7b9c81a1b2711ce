/**
 * The refresh-token reuse rule, in one place.
 *
 * - Rotation: every refresh issues a new refresh token (`rotateRefreshToken: true` in
 *   provider/configuration.ts).
 * - Detection: oidc-provider finds the presented refresh token already consumed, revokes the
 *   whole grant (every token of that consent) and fails with `invalid_grant` and
 *   REFRESH_TOKEN_REUSE_DETAIL (node_modules/oidc-provider/lib/actions/grants/refresh_token.js,
 *   `throw new InvalidGrant('refresh token already used')`). Two refreshes racing with one token
 *   are caught by the token request's atomic write (packages/db oidc-token-writes.ts): the loser
 *   revokes the whole grant too, and answers the same error (consumedTwiceError below;
 *   http/provider-request-scope.ts).
 * - Grace: REFRESH_TOKEN_REUSE_GRACE_SECONDS (config.ts) lets a reuse within that many seconds
 *   pass (the adapter reports the token unconsumed meanwhile); 0, the default, never does.
 * - Reporting: a warning log line (provider/events.ts, logProviderEvents) and the member's audit
 *   event `refresh_token.reuse_detected` (auditRefreshTokenReuse), both recognising the rule by
 *   isRefreshTokenReuse.
 *
 * test/refresh-token-reuse.test.ts pins the message to oidc-provider's, so an upgrade that changes it
 * fails there rather than silently stopping the log line and the audit event.
 */
import { errors } from 'oidc-provider';

/** oidc-provider's `error_detail` when a rotated (already used) refresh token is presented. */
export const REFRESH_TOKEN_REUSE_DETAIL = 'refresh token already used';

/** The adapter's error when a code or refresh token is consumed twice (two requests raced). */
export function consumedTwiceError(model: string): InstanceType<typeof errors.InvalidGrant> {
  return new errors.InvalidGrant(
    model === 'RefreshToken' ? REFRESH_TOKEN_REUSE_DETAIL : 'authorization code already consumed',
  );
}

export function isRefreshTokenReuse(error: { error_detail?: string | undefined }): boolean {
  return error.error_detail === REFRESH_TOKEN_REUSE_DETAIL;
}
