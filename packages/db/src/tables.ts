import type { ContactChanges, ContactRow, NewContact } from '@contacts/schemas';
import type { Knex } from 'knex';

/** A contact_images row, by column. */
export interface ContactImageRow {
  contact_id: number;
  content_type: string;
  size: number;
  sha256: string;
  bytes: Buffer;
  created_at: Date;
}

/** Knex's table types: `db('contacts')` selects ContactRow, inserts NewContact plus owner, updates ContactChanges. */
declare module 'knex/types/tables' {
  interface Tables {
    contacts: Knex.CompositeTableType<
      ContactRow,
      NewContact & { owner_id: number },
      ContactChanges & { updated_at?: Date | Knex.Raw }
    >;
    contact_images: Knex.CompositeTableType<
      ContactImageRow,
      Omit<ContactImageRow, 'created_at'> & { created_at?: Date | Knex.Raw },
      Partial<ContactImageRow>
    >;
  }
}
