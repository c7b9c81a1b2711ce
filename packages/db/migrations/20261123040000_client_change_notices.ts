import type { Knex } from 'knex';

/**
 * Every authorization-server process keeps the registered applications it has read in memory
 * (apps/auth/src/provider/client-directory.ts). A changed or deleted application is announced on
 * the `oauth_client_changes` channel when the change commits, whichever process or tool made it,
 * so that no process goes on using an old secret, redirect URI or a deleted application.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create function announce_oauth_client_change() returns trigger language plpgsql as $$
    begin
      perform pg_notify('oauth_client_changes', old.client_id);
      return null;
    end
    $$;
    create trigger oauth_clients_announce_change
      after update or delete on oauth_clients
      for each row execute function announce_oauth_client_change();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop trigger if exists oauth_clients_announce_change on oauth_clients;
    drop function if exists announce_oauth_client_change();
  `);
}
