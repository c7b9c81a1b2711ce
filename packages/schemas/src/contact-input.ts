import { z } from 'zod';
import { optionalDate, optionalEmail, optionalId, optionalText, optionalWebsite, requiredName } from './fields';

/**
 * The contact as the domain stores it, by column name. v4 calls `street` "address"; v3 calls
 * it both (see issue 5). A key that is absent leaves the stored value unchanged; null clears it.
 */
export interface ContactChanges {
  name?: string;
  email?: string | null;
  company_name?: string | null;
  personal_number?: string | null;
  work_number?: string | null;
  website?: string | null;
  street?: string | null;
  city?: string | null;
  state?: string | null;
  zipcode?: string | null;
  country?: string | null;
  business_category_id?: number | null;
  group_id?: number | null;
  referrer_id?: number | null;
  join_date?: string | null;
}

/** Optional fields common to every version's input, by their v4 (= input) names. */
const optionalContactFields = {
  email: optionalEmail().optional(),
  company_name: optionalText('company_name').optional(),
  personal_number: optionalText('personal_number', 15).optional(),
  work_number: optionalText('work_number', 15).optional(),
  website: optionalWebsite().optional(),
  address: optionalText('address').optional(),
  city: optionalText('city').optional(),
  state: optionalText('state').optional(),
  zipcode: optionalText('zipcode', 6).optional(),
  country: optionalText('country').optional(),
  business_category_id: optionalId('business_category_id').optional(),
  group_id: optionalId('group_id').optional(),
  join_date: optionalDate('join_date').optional(),
};

/** POST /v4/contacts. Unknown fields are ignored (z.object strips them). */
export const contactCreateV4 = z
  .object({ name: requiredName(), ...optionalContactFields })
  .describe('A new contact. Only `name` is required; unknown fields are ignored.');

/** POST /v4/contacts/{id}: only the fields sent change; `name`, when sent, cannot be emptied. */
export const contactUpdateV4 = z
  .object({ name: requiredName().optional(), ...optionalContactFields })
  .describe('The fields to change; the others keep their values. An optional field sent empty or null is cleared.');

export type ContactCreateV4 = z.output<typeof contactCreateV4>;
export type ContactUpdateV4 = z.output<typeof contactUpdateV4>;

/** Maps v4 input names to the stored columns, keeping "absent" (undefined) apart from "cleared" (null). */
export function v4InputToChanges(input: ContactUpdateV4): ContactChanges {
  const { address, ...rest } = input;
  const changes: ContactChanges = {};
  for (const [key, value] of Object.entries(rest)) {
    if (value !== undefined) (changes as Record<string, unknown>)[key] = value;
  }
  if (address !== undefined) changes.street = address;
  return changes;
}
