import type { Knex } from 'knex';

/**
 * A settings form that creates something shown once (a personal access token, an application
 * and its secret) carries a random form id, stored on the row it created: the same form posted
 * again (a reload, Back) finds the row instead of creating a second one. A column on the created
 * row rather than a table of submissions, so that it goes when the row goes and never grows on
 * its own; null for rows created elsewhere (CLI, administration). Unique per member.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('personal_access_tokens', (t) => {
    t.text('form_id').nullable();
    t.unique(['member_id', 'form_id'], { indexName: 'personal_access_tokens_member_form_id_unique' });
  });
  await knex.schema.alterTable('oauth_clients', (t) => {
    t.text('form_id').nullable();
    t.unique(['owner_id', 'form_id'], { indexName: 'oauth_clients_owner_form_id_unique' });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('oauth_clients', (t) => {
    t.dropUnique(['owner_id', 'form_id'], 'oauth_clients_owner_form_id_unique');
    t.dropColumn('form_id');
  });
  await knex.schema.alterTable('personal_access_tokens', (t) => {
    t.dropUnique(['member_id', 'form_id'], 'personal_access_tokens_member_form_id_unique');
    t.dropColumn('form_id');
  });
}
