import { describe, expect, it } from 'vitest';
import { contactCreateV3, contactCreateV4, contactUpdateV3, v3InputToChanges, validate } from '../src/index';

/**
 * v3's input fields, written out by hand: v3 is deprecated and its input a frozen contract, so
 * these must not follow the shared field table. A field added to CONTACT_FIELDS (and so to v4)
 * fails this test if it reaches v3; a change to v3's input is a deliberate edit here and in
 * contact-input-v3.ts. The order is the order /openapi.json lists them in.
 */
const V3_INPUT_FIELDS = [
  'name',
  'email',
  'company',
  'company_name',
  'personal_number',
  'work_number',
  'website',
  'address',
  'city',
  'state',
  'zipcode',
  'country',
  'business_category_id',
  'group_id',
  'join_date',
  'street',
  'referrer_id',
];

describe('v3 contact input, a frozen contract', () => {
  it('accepts exactly its own fields, in create and update alike', () => {
    expect(Object.keys(contactCreateV3.shape)).toEqual(V3_INPUT_FIELDS);
    expect(Object.keys(contactUpdateV3.shape)).toEqual(V3_INPUT_FIELDS);
  });

  it('ignores a v4 field it does not list, as any unknown field', () => {
    const v4Only = Object.keys(contactCreateV4.shape).filter((field) => !V3_INPUT_FIELDS.includes(field));
    for (const field of v4Only) {
      const result = validate(contactCreateV3, { name: 'A', [field]: 'x' });
      expect(result, field).toEqual({ ok: true, value: { name: 'A' } });
    }
  });

  it('writes `address` and `street` to the street column, `street` winning when both are sent', () => {
    expect(v3InputToChanges({ address: 'A street' })).toEqual({ street: 'A street' });
    expect(v3InputToChanges({ address: 'A street city', street: 'A street' })).toEqual({ street: 'A street' });
    expect(v3InputToChanges({ referrer_id: 7, company_name: 'Co' })).toEqual({ referrer_id: 7, company_name: 'Co' });
  });

  it("writes `company` (the answer's name) and `company_name` to the company, `company_name` winning when both are sent", () => {
    expect(v3InputToChanges({ company: 'NewCo' })).toEqual({ company_name: 'NewCo' });
    expect(v3InputToChanges({ company: 'Read Co', company_name: 'Sent Co' })).toEqual({ company_name: 'Sent Co' });
    expect(validate(contactUpdateV3, { company: 'x'.repeat(256) }).ok).toBe(false);
  });
});
