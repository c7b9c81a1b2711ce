import { describe, expect, it } from 'vitest';
import {
  contactCreateV3,
  contactCreateV4,
  contactUpdateV3,
  contactUpdateV4,
  isRowId,
  MAX_ROW_ID,
  v4InputToChanges,
  validate,
} from '../src/index';

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
    // Year 0000 is a valid ISO 8601 year but no PostgreSQL date (there is no year 0): it failed the insert (500).
    ['join_date', '0000-01-01'],
    ['join_date', '0000-02-29'],
    ['website', 'example.com'],
    ['website', 'javascript:alert(1)'],
    ['email', 'a@b@c'],
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

  it('accepts join dates from 0001-01-01 to 9999-12-31, and says which range in its message', () => {
    for (const join_date of ['0001-01-01', '1900-02-28', '2000-02-29', '9999-12-31']) {
      expect(validate(contactCreateV4, { name: 'A', join_date }), join_date).toMatchObject({ ok: true });
    }
    expect(validate(contactCreateV4, { name: 'A', join_date: '0000-12-31' })).toEqual({
      ok: false,
      fields: { join_date: ['The join date must be a real date from 0001-01-01 to 9999-12-31, as YYYY-MM-DD.'] },
    });
  });

  it('refuses the same dates in v3 input, create and update', () => {
    for (const schema of [contactCreateV3, contactUpdateV3]) {
      const result = validate(schema, { name: 'A', join_date: '0000-01-01' });
      expect(result.ok).toBe(false);
      if (!result.ok) expect(Object.keys(result.fields)).toEqual(['join_date']);
    }
  });

  it('reads ids in the range of a row id, from numbers and from digit strings alike', () => {
    for (const value of [MAX_ROW_ID, String(MAX_ROW_ID), 1, '1']) {
      expect(validate(contactCreateV4, { name: 'A', group_id: value }).ok, String(value)).toBe(true);
    }
    for (const value of [MAX_ROW_ID + 1, String(MAX_ROW_ID + 1), '9999999999', 0, '0']) {
      expect(validate(contactCreateV4, { name: 'A', group_id: value }).ok, String(value)).toBe(false);
    }
    expect([isRowId(1), isRowId(MAX_ROW_ID), isRowId(0), isRowId(MAX_ROW_ID + 1), isRowId(1.5)]).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
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

  it('refuses strings holding a lone surrogate (no Unicode text; PostgreSQL would store U+FFFD instead)', () => {
    const result = validate(contactCreateV4, { name: 'Jos\ud800', city: ['x', '\udfff'], company_name: '😀 ok' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.fields).toEqual({
      name: ['The name must be valid Unicode text (it holds a lone surrogate).'],
      city: expect.arrayContaining(['The city must be valid Unicode text (it holds a lone surrogate).']),
    });
    // A surrogate pair is one character, not a lone surrogate.
    expect(validate(contactCreateV4, { name: '\ud83d\ude00' }).ok).toBe(true);
  });
});
