import type { Knex } from 'knex';

/**
 * Sender-constrained tokens and account hygiene:
 * - oauth_clients.dpop_bound_access_tokens: the client must present a DPoP proof at the token
 *   endpoint (oidc-provider's `dpop_bound_access_tokens` client metadata).
 * - dpop_proofs: the `jti` of every DPoP proof the contacts API accepted, until the proof would be
 *   refused for its age anyway; the primary key makes a replay fail on every replica at once.
 * - member_sessions.user_agent / ip: shown on the member's list of browser sessions.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('oauth_clients', (t) => {
    t.boolean('dpop_bound_access_tokens').notNullable().defaultTo(false);
  });
  await knex.schema.createTable('dpop_proofs', (t) => {
    // SHA-256 of the key thumbprint and the jti: fixed size whatever the client sends.
    t.text('key').primary();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.index(['expires_at']);
  });
  await knex.schema.alterTable('member_sessions', (t) => {
    t.text('user_agent');
    t.text('ip');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('member_sessions', (t) => {
    t.dropColumn('user_agent');
    t.dropColumn('ip');
  });
  await knex.schema.dropTableIfExists('dpop_proofs');
  await knex.schema.alterTable('oauth_clients', (t) => {
    t.dropColumn('dpop_bound_access_tokens');
  });
}
