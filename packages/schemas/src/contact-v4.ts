import { z } from 'zod';
import {
  CONTACT_FIELDS,
  type ContactColumn,
  type ContactColumnValues,
  type ContactFieldSpec,
  type ContactRecordLike,
  WRITABLE_CONTACT_COLUMNS,
} from './contact-fields';

type Fields = typeof CONTACT_FIELDS;
type V4Column = { [C in ContactColumn]: Fields[C]['v4'] extends string ? C : never }[ContactColumn];

/** The output schema of one stored field, by its kind; nullable unless the column is required. */
function outputSchemaOf(spec: ContactFieldSpec): z.ZodType {
  const base = spec.kind === 'id' ? z.int() : spec.kind === 'date' ? z.iso.date() : z.string();
  const schema = spec.required ? base : base.nullable();
  return spec.v4Description ? schema.describe(spec.v4Description) : schema;
}

const v4Fields = WRITABLE_CONTACT_COLUMNS.flatMap((column) => {
  const spec: ContactFieldSpec = CONTACT_FIELDS[column];
  return spec.v4 === false ? [] : [{ column: column as V4Column, name: spec.v4, schema: outputSchemaOf(spec) }];
});

/** The v4 contact. Input names and output names are the same; the table gives them and their order. */
export type ContactV4 = { id: number } & {
  [C in V4Column as Fields[C]['v4'] & string]: ContactColumnValues[C];
} & {
  business_category_name: string | null;
  image_url: string | null;
  created_at: string;
  updated_at: string;
};

/** Fields joined in from other tables, each placed after the stored field it belongs with. */
interface JoinedField {
  name: string;
  schema: z.ZodType;
  value: (record: ContactRecordLike) => unknown;
}
const joinedAfter: Partial<Record<V4Column, JoinedField>> = {
  business_category_id: {
    name: 'business_category_name',
    schema: z.string().nullable(),
    value: (record) => record.business_category_name,
  },
};

const shape: Record<string, z.ZodType> = { id: z.int().positive() };
for (const field of v4Fields) {
  shape[field.name] = field.schema;
  const joined = joinedAfter[field.column];
  if (joined) shape[joined.name] = joined.schema;
}
Object.assign(shape, {
  image_url: z.url().nullable().describe('Where GET returns the image; null when the contact has none.'),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});

export const contactV4 = z.object(shape) as unknown as z.ZodType<ContactV4> & z.ZodObject;

/** A contact with its ETag, as the change feed and a batch answer it (not the listing: see below). */
export type ContactV4WithEtag = ContactV4 & { etag: string };

/**
 * The v4 contact plus `etag`: what a mirror keeps, so that it can write conditionally (a batch's
 * `if_match`, If-Match) without reading each contact first. GET /v4/contacts/{id} sends it as its
 * ETag header instead, and the listing leaves it out (hashing every item of a page costs it).
 */
export const contactV4WithEtag = contactV4.extend({
  etag: z
    .string()
    .describe(
      "The contact's entity tag, quotes included: the ETag header GET /v4/contacts/{id} answers for it now. Pass it as-is as a batch operation's `if_match` or as If-Match.",
    ),
}) as unknown as z.ZodType<ContactV4WithEtag> & z.ZodObject;

/** RFC 3339 in UTC, with milliseconds: the precision PostgreSQL timestamps round-trip through JS. */
export function rfc3339(date: Date): string {
  return date.toISOString();
}

/** A contact's own URL: its Location when created, its vCard UID, and the base of its image's. */
export function contactUrl(publicUrl: string, contactId: number): string {
  return `${publicUrl.replace(/\/$/, '')}/v4/contacts/${contactId}`;
}

export function contactImageUrl(publicUrl: string, contactId: number): string {
  return `${contactUrl(publicUrl, contactId)}/image`;
}

/** A guest's image as the group's members read it (the contact belongs to another member). */
export function groupGuestImageUrl(publicUrl: string, groupId: number, contactId: number): string {
  return `${publicUrl.replace(/\/$/, '')}/v4/groups/${groupId}/guests/${contactId}/image`;
}

export interface ContactV4Options {
  publicUrl: string;
  /** Where the caller reads the image (default: the owner's /v4/contacts/{id}/image). */
  imageUrl?: (contactId: number) => string;
}

export function toContactV4(record: ContactRecordLike, options: ContactV4Options): ContactV4 {
  const contact: Record<string, unknown> = { id: record.id };
  for (const field of v4Fields) {
    contact[field.name] = record[field.column];
    const joined = joinedAfter[field.column];
    if (joined) contact[joined.name] = joined.value(record);
  }
  contact.image_url =
    record.image_sha256 === null
      ? null
      : (options.imageUrl?.(record.id) ?? contactImageUrl(options.publicUrl, record.id));
  contact.created_at = rfc3339(record.created_at);
  contact.updated_at = rfc3339(record.updated_at);
  return contact as ContactV4;
}
