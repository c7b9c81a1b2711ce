import type { Knex } from 'knex';

/**
 * Indexes the janitor's deletions walk, so that each of its batches finds the rows that may go
 * without reading the table (oidc_models, contact_tombstones and dpop_proofs already have one).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('create index member_sessions_expires_at on member_sessions (expires_at)');
  await knex.raw('create index rate_limits_expire on rate_limits (expire)');
  await knex.raw('create index audit_events_created_at on audit_events (created_at)');
  await knex.raw('create index personal_access_tokens_expires_at on personal_access_tokens (expires_at)');
}

export async function down(knex: Knex): Promise<void> {
  for (const index of [
    'personal_access_tokens_expires_at',
    'audit_events_created_at',
    'rate_limits_expire',
    'member_sessions_expires_at',
  ]) {
    await knex.raw(`drop index if exists ${index}`);
  }
}
