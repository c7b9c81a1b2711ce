import { z } from 'zod';
import type { ContactChanges, NewContact } from './contact-fields';
import { type ContactInputNames, contactCreateShape, contactInputToChanges, contactUpdateShape } from './contact-input';
import { MAX_LIST_LIMIT } from './limits';

/**
 * v3's input names, each with the column it writes. v3 is deprecated and its input a frozen
 * contract, so its names are listed here by hand rather than derived from CONTACT_FIELDS (as v4's
 * are): a field added to the table is not in v3 unless it is added here deliberately. The rules
 * of each field (kind, limits, required) still come from the column's line in CONTACT_FIELDS.
 *
 * These are v4's names when this list was written, in v4's order, plus `street` and `company`
 * (the names the v3 answer gives the street and the company) and `referrer_id` (the member who
 * invited the contact), so that a v3 object sent back, edited, keeps its edits. Where two names
 * write one column, the later in this list wins when both are sent: v3's `address` is the street
 * address, as in v4, and a v3 object sent back carries the joined full address in it, so `street`
 * comes after it; `company` carries the same value as `company_name`, the name v3 documents for
 * input, so `company_name` comes after it.
 */
const V3_INPUT_NAMES = {
  name: 'name',
  email: 'email',
  company: 'company_name',
  company_name: 'company_name',
  personal_number: 'personal_number',
  work_number: 'work_number',
  website: 'website',
  address: 'street',
  city: 'city',
  state: 'state',
  zipcode: 'zipcode',
  country: 'country',
  business_category_id: 'business_category_id',
  group_id: 'group_id',
  join_date: 'join_date',
  street: 'street',
  referrer_id: 'referrer_id',
} as const satisfies ContactInputNames;

/** POST /v3/contacts: create, or update the caller's contact with the same e-mail. */
export const contactCreateV3 = z
  .object(contactCreateShape(V3_INPUT_NAMES))
  .describe('A contact, created or (same e-mail) updated. Only `name` is required; unknown fields are ignored.');

/** PATCH /v3/contacts/{id}: only the fields sent change. */
export const contactUpdateV3 = z
  .object(contactUpdateShape(V3_INPUT_NAMES))
  .describe('The fields to change; the others keep their values. An optional field sent empty or null is cleared.');

export type ContactCreateV3 = z.output<typeof contactCreateV3>;
export type ContactUpdateV3 = z.output<typeof contactUpdateV3>;

/** v3 input to columns; as in v4, a create's input maps to a NewContact. */
export function v3InputToChanges(input: ContactCreateV3): NewContact;
export function v3InputToChanges(input: ContactUpdateV3): ContactChanges;
export function v3InputToChanges(input: ContactUpdateV3): ContactChanges {
  return contactInputToChanges(V3_INPUT_NAMES, input);
}

/**
 * A path segment holding a whole number in [min, max]; anything else (-1, 1.5, abc, 1e3) is refused.
 * At most 15 digits are read (leading zeros included), which no max here exceeds. Documented as
 * the integer it stands for.
 */
function pathInteger(min: number, max: number, message: string) {
  return z
    .string({ error: message })
    .regex(/^\d{1,15}$/, message)
    .transform(Number)
    .refine((n) => n >= min && n <= max, message)
    .meta({ type: 'integer', minimum: min, maximum: max });
}

/**
 * The largest v3 `{offset}`: the largest number of 15 digits, the most pathInteger reads (an
 * offset past the caller's contacts is an empty page anyway).
 */
export const MAX_V3_OFFSET = 999_999_999_999_999;

/** GET /v3/contacts/{offset}/{limit}. */
export const contactPageParamsV3 = z.object({
  offset: pathInteger(0, MAX_V3_OFFSET, `The offset must be an integer from 0 to ${MAX_V3_OFFSET}.`).describe(
    'How many contacts (in id order) to skip.',
  ),
  limit: pathInteger(1, MAX_LIST_LIMIT, `The limit must be an integer between 1 and ${MAX_LIST_LIMIT}.`).describe(
    `Page size, 1 to ${MAX_LIST_LIMIT}.`,
  ),
});

export type ContactPageParamsV3 = z.output<typeof contactPageParamsV3>;
