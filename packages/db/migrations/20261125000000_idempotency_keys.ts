import type { Knex } from 'knex';

/**
 * idempotency_keys: the `Idempotency-Key` a member sent with a create (POST /v4/contacts, the v4
 * batch), written in the same transaction as what it created, so that a retry of the same request
 * is answered again instead of creating twice. Only what the answer needs is kept (status and the
 * ids of the contacts it answered with), never contact data: the replay reads the contacts as they
 * are now. Rows expire (IDEMPOTENCY_KEY_TTL_SECONDS) and the janitor deletes them after that, by
 * the expires_at index. A member's rows go with the member.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('idempotency_keys', (t) => {
    t.integer('member_id').notNullable().references('members.id').onDelete('CASCADE');
    // 1 to 255 printable ASCII characters, checked by the API before it gets here.
    t.text('key').notNullable();
    // SHA-256 (base64url) of the request's method, path and body: the same key with another
    // request is refused rather than answered with this one's answer.
    t.text('fingerprint').notNullable();
    t.smallint('status').notNullable();
    // The contacts of the answer, in order (one for a create; one per operation for a batch).
    // No foreign key: a contact deleted since is answered as deleted, and deletes stay as cheap.
    t.specificType('result_ids', 'integer[]').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.primary(['member_id', 'key']);
    t.index(['expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('idempotency_keys');
}
