/**
 * The contact, defined once: every column of the contacts table that a client can write, in the
 * order the v4 answer lists them. The stored row and change types, the writable column list, the
 * v4 input schemas and the v4 serializer are derived from this table, so adding a field is a
 * migration plus one line here. The deprecated v3 takes its field rules from here too, but picks
 * its fields by name (contact-input-v3.ts), so a new field does not reach v3's frozen contract.
 *
 * - `kind`: the stored type and the input rules (text: string up to `max`; email; url; date:
 *   YYYY-MM-DD; id: a positive integer referencing another table).
 * - `required`: the column is NOT NULL and a create must send it.
 * - `v4`: the field's name in v4 input and output (false: not part of v4, e.g. the referrer).
 * - `v4Description`: documentation of the v4 field.
 */
export type ContactFieldKind = 'text' | 'email' | 'url' | 'date' | 'id';

export interface ContactFieldSpec {
  readonly kind: ContactFieldKind;
  readonly required?: true;
  readonly max?: number;
  readonly v4: string | false;
  readonly v4Description?: string;
}

export const CONTACT_FIELDS = {
  name: { kind: 'text', required: true, max: 255, v4: 'name' },
  email: { kind: 'email', max: 254, v4: 'email' },
  company_name: { kind: 'text', max: 255, v4: 'company_name' },
  personal_number: { kind: 'text', max: 15, v4: 'personal_number' },
  work_number: { kind: 'text', max: 15, v4: 'work_number' },
  website: { kind: 'url', max: 2048, v4: 'website' },
  street: { kind: 'text', max: 255, v4: 'address', v4Description: 'Street address.' },
  city: { kind: 'text', max: 255, v4: 'city' },
  state: { kind: 'text', max: 255, v4: 'state' },
  zipcode: { kind: 'text', max: 6, v4: 'zipcode' },
  country: { kind: 'text', max: 255, v4: 'country' },
  business_category_id: { kind: 'id', v4: 'business_category_id' },
  group_id: { kind: 'id', v4: 'group_id' },
  referrer_id: { kind: 'id', v4: false },
  join_date: { kind: 'date', v4: 'join_date' },
} as const satisfies Record<string, ContactFieldSpec>;

type Fields = typeof CONTACT_FIELDS;
export type ContactColumn = keyof Fields;

type StoredType<F extends ContactFieldSpec> = F['kind'] extends 'id' ? number : string;
type RequiredColumn = { [C in ContactColumn]: Fields[C] extends { required: true } ? C : never }[ContactColumn];

/** The writable columns with their stored types (null where the column allows it). */
export type ContactColumnValues = {
  [C in ContactColumn]: StoredType<Fields[C]> | (C extends RequiredColumn ? never : null);
};

/**
 * A change to a contact, by column: an absent key leaves the stored value unchanged, null
 * clears it. Required columns can be changed but never cleared.
 */
export type ContactChanges = Partial<ContactColumnValues>;

/** What a new contact needs: the changes, with every required column present. */
export type NewContact = ContactChanges & Pick<ContactColumnValues, RequiredColumn>;

/** A contacts row, by column. */
export type ContactRow = { id: number; owner_id: number } & ContactColumnValues & {
    created_at: Date;
    updated_at: Date;
  };

/**
 * What the serializers need to know about a stored contact: the row plus the names joined in
 * and the image's SHA-256 (null when there is none).
 */
export type ContactRecordLike = ContactRow & {
  business_category_name: string | null;
  referrer_name: string | null;
  image_sha256: string | null;
};

/** Every writable column, in table order. */
export const WRITABLE_CONTACT_COLUMNS = Object.keys(CONTACT_FIELDS) as ContactColumn[];

/** The columns that a new contact must carry. */
export const REQUIRED_CONTACT_COLUMNS = WRITABLE_CONTACT_COLUMNS.filter(
  (column) => (CONTACT_FIELDS[column] as ContactFieldSpec).required === true,
) as RequiredColumn[];

/** Whether changes carry every required column (what a create needs). */
export function isNewContact(changes: ContactChanges): changes is NewContact {
  return REQUIRED_CONTACT_COLUMNS.every((column) => changes[column] !== undefined && changes[column] !== null);
}
