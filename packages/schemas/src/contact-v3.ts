import { z } from 'zod';
import type { ContactRecordLike } from './contact-fields';

/**
 * The deprecated v3 contact, exactly as the original service published it: no
 * envelope, this key order, `address` built from the four address parts, `group_id` as a
 * string, timestamps as `YYYY-MM-DD HH:MM:SS` in UTC. `user_id` only in create/upsert answers.
 */
const nullableString = z.string().nullable();
const v3DateTime = z
  .string()
  .regex(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/)
  .describe('UTC, formatted YYYY-MM-DD HH:MM:SS.');

const contactV3Fields = {
  id: z.int().positive(),
  name: z.string(),
  email: z.string().describe('"" when the contact has none.'),
  personal_number: nullableString,
  work_number: nullableString,
  street: nullableString.describe('The street address (v3 input `address` or `street`).'),
  city: nullableString,
  state: nullableString,
  zipcode: nullableString,
  address: z
    .string()
    .describe(
      'street, city, state and zipcode joined by single spaces, a missing part counting as "" ("   " when all are missing).',
    ),
  company: nullableString.describe('The company name (input `company_name`).'),
  business_category_id: z.int().nullable(),
  business_category_name: z.string().describe('"" when there is no category.'),
  referrer_id: z.int().nullable(),
  referrer_name: z.string().describe('The referring member\'s name; "" when there is none.'),
  group_id: z
    .string()
    .regex(/^(\d+)?$/)
    .describe('The group id as a string of digits; "" when the contact is in no group.'),
};

export const contactV3 = z.object({ ...contactV3Fields, created_at: v3DateTime, updated_at: v3DateTime });

/** The create/upsert answer: the same object with the owner's member id before the timestamps. */
export const contactV3WithOwner = z.object({
  ...contactV3Fields,
  user_id: z.int().positive().describe('The member who owns the contact.'),
  created_at: v3DateTime,
  updated_at: v3DateTime,
});

export type ContactV3 = z.output<typeof contactV3>;
export type ContactV3WithOwner = z.output<typeof contactV3WithOwner>;

/** `YYYY-MM-DD HH:MM:SS` in UTC (the original's format; sub-second precision is dropped). */
export function v3DateTimeOf(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

/** street, city, state and zipcode joined by single spaces, null counting as "" (so "   " when all are null). */
export function v3AddressOf(record: Pick<ContactRecordLike, 'street' | 'city' | 'state' | 'zipcode'>): string {
  return [record.street, record.city, record.state, record.zipcode].map((part) => part ?? '').join(' ');
}

export function toContactV3(record: ContactRecordLike): ContactV3;
export function toContactV3(record: ContactRecordLike, options: { withUserId: true }): ContactV3WithOwner;
export function toContactV3(record: ContactRecordLike, options: { withUserId?: boolean } = {}): ContactV3 {
  return {
    id: record.id,
    name: record.name,
    email: record.email ?? '',
    personal_number: record.personal_number,
    work_number: record.work_number,
    street: record.street,
    city: record.city,
    state: record.state,
    zipcode: record.zipcode,
    address: v3AddressOf(record),
    company: record.company_name,
    business_category_id: record.business_category_id,
    business_category_name: record.business_category_name ?? '',
    referrer_id: record.referrer_id,
    referrer_name: record.referrer_name ?? '',
    group_id: record.group_id === null ? '' : String(record.group_id),
    ...(options.withUserId ? { user_id: record.owner_id } : {}),
    created_at: v3DateTimeOf(record.created_at),
    updated_at: v3DateTimeOf(record.updated_at),
  };
}
