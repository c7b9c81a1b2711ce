import type { Knex } from 'knex';

/**
 * The consent (Grant row) behind a personal access token was stored with GRANT_TTL (a year)
 * instead of the token's own lifetime, so it stayed that long after the token had expired and
 * the janitor had removed the token. New tokens get the token's lifetime (personal-tokens.ts);
 * this gives the existing ones the same (the token's expiry and a minute), so that the janitor removes them with their tokens.
 * Nothing reads a Grant row's expiry but the janitor, and the token it belongs to is checked by
 * its own row, so the change alters no answer. Down is a no-op: the longer expiry served nothing.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    update oidc_models as grants
       set expires_at = tokens.expires_at + interval '1 minute'
      from personal_access_tokens as tokens
     where grants.model = 'Grant'
       and grants.grant_id = tokens.grant_id
       and (grants.expires_at is null or grants.expires_at > tokens.expires_at + interval '1 minute')
  `);
}

export async function down(): Promise<void> {}
