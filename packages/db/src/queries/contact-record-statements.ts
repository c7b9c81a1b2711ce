import type { ContactRow } from '@contacts/schemas/contact-fields';
import { WRITABLE_CONTACT_COLUMNS } from '@contacts/schemas/contact-fields';

/**
 * The SQL of one contact's record (the row, the names joined in, whether it has an image), for
 * the statements every read and every create of one contact runs. A module of its own, free of
 * knex, so that the benchmark's bare ceiling (bench/src/runners/bare-http.ts) prepares exactly
 * the text the API prepares.
 */

// Spelled out rather than `*`: prepared statements must keep their result columns when a
// migration adds one. The writable columns come from the contact's one definition.
export const WRITABLE_COLUMNS = WRITABLE_CONTACT_COLUMNS;
export const CONTACT_COLUMNS: Array<keyof ContactRow> = [
  'id',
  'owner_id',
  ...WRITABLE_COLUMNS,
  'created_at',
  'updated_at',
];

export const RECORD_JOINS = `left join business_categories as bc on bc.id = c.business_category_id
  left join members as r on r.id = c.referrer_id`;
export const ROW_COLUMNS = CONTACT_COLUMNS.map((column) => `c.${column}`).join(', ');

/** One contact of its owner: `$1` the owner, `$2` the id. */
export const FIND_RECORD = {
  name: 'contacts.find-record',
  text: `select ${ROW_COLUMNS}, bc.name as business_category_name, r.name as referrer_name,
  ci.sha256 as image_sha256
  from contacts as c ${RECORD_JOINS}
  left join contact_images as ci on ci.contact_id = c.id
  where c.owner_id = $1 and c.id = $2`,
} as const;

/** A create: `$1` the owner, then WRITABLE_COLUMNS in order; answers the new record. */
export const INSERT_RECORD = {
  name: 'contacts.insert-record',
  text: `with c as (
    insert into contacts (owner_id, ${WRITABLE_COLUMNS.join(', ')})
    values ($1, ${WRITABLE_COLUMNS.map((_, index) => `$${index + 2}`).join(', ')})
    returning ${CONTACT_COLUMNS.join(', ')}
  )
  select ${ROW_COLUMNS}, bc.name as business_category_name, r.name as referrer_name, null as image_sha256
  from c ${RECORD_JOINS}`,
} as const;
