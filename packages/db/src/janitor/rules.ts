import { TOMBSTONE_RETENTION_MARGIN_SECONDS } from '../queries/contact-changes';

/**
 * What the janitor deletes: one rule per table that gains rows with traffic. Each rule names a
 * condition that only rows nobody can use any more satisfy, served by an index so that a batch
 * costs the same however large the table is.
 *
 * Expiry is compared with a minute to spare: the services set expiry times with their own clock
 * (oidc-provider and rate-limiter-flexible use Date.now()), the janitor with PostgreSQL's.
 */
export interface RetentionRule {
  /** Name of the rule in reports and metrics. */
  kind: JanitorKind;
  table: string;
  /** SQL condition selecting the rows that may go; `?` placeholders take `bindings`. */
  condition: string;
  bindings(options: RetentionOptions): unknown[];
}

export interface RetentionOptions {
  /** Audit events older than this many days are deleted. */
  auditRetentionDays: number;
  /** Tombstones of deleted contacts are kept this long (a sync token's lifetime), plus a margin. */
  syncTokenTtlSeconds: number;
}

export const JANITOR_KINDS = [
  'oidc_models',
  'member_sessions',
  'rate_limits',
  'audit_events',
  'personal_access_tokens',
  'contact_tombstones',
  'dpop_proofs',
  'idempotency_keys',
] as const;

export type JanitorKind = (typeof JANITOR_KINDS)[number];

/** Days an expired personal access token stays listed on the member's settings page. */
export const EXPIRED_PERSONAL_TOKEN_KEPT_DAYS = 30;

export const RETENTION_RULES: readonly RetentionRule[] = [
  {
    // Every oidc-provider model (tokens, codes, sessions, interactions, grants) once past its
    // expiry. A consumed code or refresh token stays until then: oidc-provider recognises its
    // reuse (and revokes the grant) only while the row is there, and an expired token is refused
    // anyway.
    kind: 'oidc_models',
    table: 'oidc_models',
    condition: "expires_at < now() - interval '1 minute'",
    bindings: () => [],
  },
  {
    kind: 'member_sessions',
    table: 'member_sessions',
    condition: "expires_at < now() - interval '1 minute'",
    bindings: () => [],
  },
  {
    // rate-limiter-flexible stores the end of a key's window (or block) in epoch milliseconds and
    // starts a new window over an expired row, so deleting it changes no count. The library's own
    // cleanup (clearExpiredByTimeout) is off because it runs in every replica at once.
    kind: 'rate_limits',
    table: 'rate_limits',
    condition: '"expire" < (extract(epoch from now()) * 1000)::bigint - 60000',
    bindings: () => [],
  },
  {
    kind: 'audit_events',
    table: 'audit_events',
    condition: 'created_at < now() - make_interval(days => ?)',
    bindings: (options) => [options.auditRetentionDays],
  },
  {
    kind: 'personal_access_tokens',
    table: 'personal_access_tokens',
    condition: `expires_at < now() - interval '${EXPIRED_PERSONAL_TOKEN_KEPT_DAYS} days'`,
    bindings: () => [],
  },
  {
    // A sync token older than its lifetime is refused (410), so no client can ask for these.
    kind: 'contact_tombstones',
    table: 'contact_tombstones',
    condition: 'deleted_at < now() - make_interval(secs => ?)',
    bindings: (options) => [options.syncTokenTtlSeconds + TOMBSTONE_RETENTION_MARGIN_SECONDS],
  },
  {
    // A proof past its window is refused by its age; its jti need not be remembered any more.
    kind: 'dpop_proofs',
    table: 'dpop_proofs',
    condition: "expires_at < now() - interval '1 minute'",
    bindings: () => [],
  },
  {
    // A retry after its key expired is a new request (IDEMPOTENCY_KEY_TTL_SECONDS): the record
    // answers nobody any more. Its expiry is PostgreSQL's own clock, so no minute is needed; one
    // is kept all the same, like every other rule.
    kind: 'idempotency_keys',
    table: 'idempotency_keys',
    condition: "expires_at < now() - interval '1 minute'",
    bindings: () => [],
  },
];
