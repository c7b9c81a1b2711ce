import type { Knex } from 'knex';

/** An administrator can disable a member (`pnpm cli member disable`): they cannot sign in again until enabled. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('members', (t) => {
    t.timestamp('disabled_at', { useTz: true }).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('members', (t) => {
    t.dropColumn('disabled_at');
  });
}
