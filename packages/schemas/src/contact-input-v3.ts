import { z } from 'zod';
import type { ContactChanges, NewContact } from './contact-fields';
import { contactCreateV4, contactFieldInput, contactUpdateV4, v4InputToChanges } from './contact-input';
import { MAX_LIST_LIMIT } from './limits';

/**
 * v3 input: v4's fields plus `referrer_id` (the member who invited the contact) and `street`
 * (which the v3 answer carries). v3's `address` is the street address, as in v4; when a client
 * sends both — typically a v3 object sent back, whose `address` is the joined full address —
 * `street` wins.
 */
const v3OnlyFields = {
  street: contactFieldInput('street', 'street').optional(),
  referrer_id: contactFieldInput('referrer_id', 'referrer_id').optional(),
};

/** POST /v3/contacts: create, or update the caller's contact with the same e-mail. */
export const contactCreateV3 = contactCreateV4
  .extend(v3OnlyFields)
  .describe('A contact, created or (same e-mail) updated. Only `name` is required; unknown fields are ignored.');

/** PATCH /v3/contacts/{id}: only the fields sent change. */
export const contactUpdateV3 = contactUpdateV4
  .extend(v3OnlyFields)
  .describe('The fields to change; the others keep their values. An optional field sent empty or null is cleared.');

export type ContactCreateV3 = z.output<typeof contactCreateV3>;
export type ContactUpdateV3 = z.output<typeof contactUpdateV3>;

/** v3 input to columns; as in v4, a create's input maps to a NewContact. */
export function v3InputToChanges(input: ContactCreateV3): NewContact;
export function v3InputToChanges(input: ContactUpdateV3): ContactChanges;
export function v3InputToChanges(input: ContactUpdateV3): ContactChanges {
  const { street, referrer_id, ...common } = input;
  const changes: ContactChanges = v4InputToChanges(common);
  if (referrer_id !== undefined) changes.referrer_id = referrer_id;
  if (street !== undefined) changes.street = street;
  return changes;
}

/**
 * A path segment holding a whole number in [min, max]; anything else (-1, 1.5, abc, 1e3) is refused.
 * Documented as the integer it stands for.
 */
function pathInteger(min: number, max: number, message: string) {
  return z
    .string({ error: message })
    .regex(/^\d{1,15}$/, message)
    .transform(Number)
    .refine((n) => n >= min && n <= max, message)
    .meta({ type: 'integer', minimum: min, ...(max < Number.MAX_SAFE_INTEGER ? { maximum: max } : {}) });
}

/** GET /v3/contacts/{offset}/{limit}. */
export const contactPageParamsV3 = z.object({
  offset: pathInteger(0, Number.MAX_SAFE_INTEGER, 'The offset must be an integer of at least 0.').describe(
    'How many contacts (in id order) to skip.',
  ),
  limit: pathInteger(1, MAX_LIST_LIMIT, `The limit must be an integer between 1 and ${MAX_LIST_LIMIT}.`).describe(
    `Page size, 1 to ${MAX_LIST_LIMIT}.`,
  ),
});

export type ContactPageParamsV3 = z.output<typeof contactPageParamsV3>;
