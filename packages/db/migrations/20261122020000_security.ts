import type { Knex } from 'knex';

/**
 * Security bookkeeping: the audit trail members see at /settings/security, and the counters of
 * rate-limiter-flexible (shared by every replica, so limits hold across the fleet).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('audit_events', (t) => {
    t.bigIncrements('id');
    t.integer('member_id').references('members.id').onDelete('CASCADE');
    t.text('event').notNullable();
    t.text('client_id');
    t.text('ip');
    t.jsonb('details').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['member_id', 'created_at']);
  });
  // The layout rate-limiter-flexible's PostgreSQL store expects (created here, not at run time).
  await knex.schema.createTable('rate_limits', (t) => {
    t.string('key', 255).primary();
    t.integer('points').notNullable().defaultTo(0);
    t.bigInteger('expire');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('rate_limits');
  await knex.schema.dropTableIfExists('audit_events');
}
