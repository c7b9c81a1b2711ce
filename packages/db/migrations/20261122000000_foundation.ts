import type { Knex } from 'knex';

/**
 * The schema the product starts with: members and their groups, the address book,
 * OAuth clients and personal access tokens, and oidc-provider's model storage.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('members', (t) => {
    t.increments('id');
    t.text('email').notNullable();
    t.text('name').notNullable();
    t.text('password_hash').notNullable();
    t.timestamps(true, true);
  });
  await knex.raw('create unique index members_email_unique on members (lower(email))');

  await knex.schema.createTable('groups', (t) => {
    t.increments('id');
    t.text('name').notNullable();
    t.timestamps(true, true);
  });

  await knex.schema.createTable('group_members', (t) => {
    t.integer('group_id').notNullable().references('groups.id').onDelete('CASCADE');
    t.integer('member_id').notNullable().references('members.id').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['group_id', 'member_id']);
    t.index(['member_id']);
  });

  await knex.schema.createTable('business_categories', (t) => {
    t.increments('id');
    t.text('name').notNullable().unique();
    t.timestamps(true, true);
  });

  await knex.schema.createTable('contacts', (t) => {
    t.increments('id');
    t.integer('owner_id').notNullable().references('members.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('email');
    t.text('company_name');
    t.string('personal_number', 15);
    t.string('work_number', 15);
    t.text('website');
    t.text('street');
    t.text('city');
    t.text('state');
    t.string('zipcode', 6);
    t.text('country');
    t.integer('business_category_id').references('business_categories.id').onDelete('SET NULL');
    t.integer('group_id').references('groups.id').onDelete('SET NULL');
    t.integer('referrer_id').references('members.id').onDelete('SET NULL');
    t.date('join_date');
    t.timestamps(true, true);
  });
  // Keyset pagination walks (owner_id, id); the others serve filters and the v3 upsert.
  await knex.raw('create index contacts_owner_id_id on contacts (owner_id, id)');
  await knex.raw('create index contacts_owner_updated_at on contacts (owner_id, updated_at, id)');
  await knex.raw('create index contacts_group_id on contacts (group_id) where group_id is not null');
  await knex.raw(
    'create unique index contacts_owner_email_unique on contacts (owner_id, lower(email)) where email is not null',
  );

  await knex.schema.createTable('contact_images', (t) => {
    t.integer('contact_id').primary().references('contacts.id').onDelete('CASCADE');
    t.text('content_type').notNullable();
    t.integer('size').notNullable();
    t.text('sha256').notNullable();
    t.binary('bytes').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('oauth_clients', (t) => {
    t.text('client_id').primary();
    t.integer('owner_id').notNullable().references('members.id').onDelete('CASCADE');
    t.text('name').notNullable();
    // scrypt hash of the secret; null for public clients (PKCE, no secret).
    t.text('secret_hash');
    t.specificType('redirect_uris', 'text[]').notNullable();
    t.boolean('is_public').notNullable().defaultTo(false);
    t.timestamps(true, true);
    t.index(['owner_id']);
  });

  await knex.schema.createTable('personal_access_tokens', (t) => {
    t.increments('id');
    t.integer('member_id').notNullable().references('members.id').onDelete('CASCADE');
    t.text('name').notNullable();
    // Hash of the token value, the same key the oidc-provider adapter stores it under.
    t.text('token_hash').notNullable().unique();
    t.text('grant_id').notNullable().unique();
    t.specificType('scopes', 'text[]').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('last_used_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['member_id']);
  });

  // oidc-provider's models (Session, Interaction, Grant, AuthorizationCode, AccessToken,
  // RefreshToken, ...). Rows are keyed by a hash of the model id so that the database
  // never holds a usable token value.
  await knex.schema.createTable('oidc_models', (t) => {
    t.text('model').notNullable();
    t.text('id_hash').notNullable();
    t.jsonb('payload').notNullable();
    t.text('grant_id');
    t.text('uid');
    // Copied out of the payload so that a member's grants and a client's tokens can be found.
    t.text('account_id');
    t.text('client_id');
    t.timestamp('expires_at', { useTz: true });
    t.timestamp('consumed_at', { useTz: true });
    t.primary(['model', 'id_hash']);
    t.index(['grant_id']);
    t.index(['uid']);
    t.index(['expires_at']);
    t.index(['account_id', 'client_id']);
    t.index(['client_id']);
  });

  // Signed-in sessions of the auth app's own pages (developer settings).
  await knex.schema.createTable('member_sessions', (t) => {
    t.text('id_hash').primary();
    t.integer('member_id').notNullable().references('members.id').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.index(['member_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'member_sessions',
    'oidc_models',
    'personal_access_tokens',
    'oauth_clients',
    'contact_images',
    'contacts',
    'business_categories',
    'group_members',
    'groups',
    'members',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
