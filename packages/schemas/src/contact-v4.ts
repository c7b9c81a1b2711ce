import { z } from 'zod';
import type { ContactRecordLike } from './contact-record';

const nullableString = z.string().nullable();

/** The v4 contact, key for key as issue 4 lists it. Input names and output names are the same. */
export const contactV4 = z.object({
  id: z.int().positive(),
  name: z.string(),
  email: nullableString,
  company_name: nullableString,
  personal_number: nullableString,
  work_number: nullableString,
  website: nullableString,
  address: nullableString.describe('Street address.'),
  city: nullableString,
  state: nullableString,
  zipcode: nullableString,
  country: nullableString,
  business_category_id: z.int().nullable(),
  business_category_name: nullableString,
  group_id: z.int().nullable(),
  join_date: z.iso.date().nullable(),
  image_url: z.url().nullable().describe('Where GET returns the image; null when the contact has none.'),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});

export type ContactV4 = z.output<typeof contactV4>;

/** RFC 3339 in UTC, with milliseconds: the precision PostgreSQL timestamps round-trip through JS. */
export function rfc3339(date: Date): string {
  return date.toISOString();
}

export function contactImageUrl(publicUrl: string, contactId: number): string {
  return `${publicUrl.replace(/\/$/, '')}/v4/contacts/${contactId}/image`;
}

export function toContactV4(record: ContactRecordLike, options: { publicUrl: string }): ContactV4 {
  return {
    id: record.id,
    name: record.name,
    email: record.email,
    company_name: record.company_name,
    personal_number: record.personal_number,
    work_number: record.work_number,
    website: record.website,
    address: record.street,
    city: record.city,
    state: record.state,
    zipcode: record.zipcode,
    country: record.country,
    business_category_id: record.business_category_id,
    business_category_name: record.business_category_name,
    group_id: record.group_id,
    join_date: record.join_date,
    image_url: record.image_sha256 === null ? null : contactImageUrl(options.publicUrl, record.id),
    created_at: rfc3339(record.created_at),
    updated_at: rfc3339(record.updated_at),
  };
}
