import type { Knex } from 'knex';

/**
 * A group's guests are listed a page at a time in id order (contactRecordPages): (group_id, id)
 * finds each page where it starts. On (group_id) alone every page read and sorted all of the
 * group's guests, so listing a large group cost pages × guests.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('create index contacts_group_id_id on contacts (group_id, id) where group_id is not null');
  await knex.raw('drop index contacts_group_id');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('create index contacts_group_id on contacts (group_id) where group_id is not null');
  await knex.raw('drop index contacts_group_id_id');
}
