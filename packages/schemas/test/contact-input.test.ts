import { describe, expect, it } from 'vitest';
import { contactCreateV4, contactUpdateV4, v4InputToChanges, validate } from '../src/index';

describe('v4 contact input', () => {
  it('trims, turns empty optional values into null, ignores unknown fields and reads digit strings as ids', () => {
    const result = validate(contactCreateV4, {
      name: ' Ada ',
      email: '',
      city: null,
      business_category_id: '12',
      group_id: 3,
      join_date: '2024-02-29',
      unknown: 'x',
    });
    expect(result).toEqual({
      ok: true,
      value: { name: 'Ada', email: null, city: null, business_category_id: 12, group_id: 3, join_date: '2024-02-29' },
    });
  });

  it.each([
    ['join_date', '2024-02-30'],
    ['join_date', '2023-02-29'],
    ['join_date', '2024-1-01'],
    ['website', 'example.com'],
    ['website', 'javascript:alert(1)'],
    ['email', 'a@b'],
    ['personal_number', '1'.repeat(16)],
    ['zipcode', '1234567'],
    ['group_id', '1.5'],
    ['group_id', 1.5],
    ['group_id', -1],
    ['group_id', '0'],
    ['business_category_id', 'ten'],
    ['business_category_id', 99_999_999_999],
  ])('refuses %s = %j with a message for that field', (field, value) => {
    const result = validate(contactCreateV4, { name: 'A', [field]: value });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(Object.keys(result.fields)).toEqual([field]);
  });

  it('accepts the limits exactly: 15-character numbers, 6-character zipcode, 255-character name', () => {
    const result = validate(contactCreateV4, {
      name: 'n'.repeat(255),
      personal_number: '1'.repeat(15),
      work_number: '2'.repeat(15),
      zipcode: '123456',
    });
    expect(result.ok).toBe(true);
  });

  it('requires the name on create, not on update, but never lets it be emptied', () => {
    expect(validate(contactCreateV4, {})).toEqual({ ok: false, fields: { name: ['The name field is required.'] } });
    expect(validate(contactUpdateV4, {})).toEqual({ ok: true, value: {} });
    expect(validate(contactUpdateV4, { name: '' }).ok).toBe(false);
    expect(validate(contactUpdateV4, { name: null }).ok).toBe(false);
  });

  it('maps v4 names to columns, keeping "absent" apart from "cleared"', () => {
    const parsed = validate(contactUpdateV4, { address: '1 Main St', city: '' });
    expect(parsed.ok && v4InputToChanges(parsed.value)).toEqual({ street: '1 Main St', city: null });
  });

  it.each([
    null,
    [],
    'text',
    42,
    { name: {} },
    { name: ['a'] },
    { group_id: {} },
    { join_date: 20240101 },
    { website: [] },
  ])('never throws on %j, it reports', (input) => {
    expect(validate(contactCreateV4, input).ok).toBe(false);
  });
});

describe('validate, whatever the schema', () => {
  it('refuses strings holding NUL, field by field, next to the schema’s own messages', () => {
    const result = validate(contactCreateV4, { name: 'Gr\u0000ace', city: ['x', 'y\u0000'], email: 'not an e-mail' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.fields.name).toEqual(['The name must not contain NUL characters.']);
    expect(result.fields.city?.at(-1)).toBe('The city must not contain NUL characters.');
    expect(result.fields.email).toEqual(['The email must be a valid email address.']);
    expect(validate(contactCreateV4, { name: 'Grace' }).ok).toBe(true);
  });
});
