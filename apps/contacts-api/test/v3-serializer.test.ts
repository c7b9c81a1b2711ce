import { type ContactRecordLike, summarizeFieldErrors, toContactV3 } from '@contacts/schemas';
import { describe, expect, it } from 'vitest';
import { V3_CONTACT_KEYS, V3_CONTACT_KEYS_WITH_OWNER } from './support/v3-contract';

/** The v3 serializer on its own: exact keys, order, types and formatting (no database). */
const record: ContactRecordLike = {
  id: 42,
  owner_id: 7,
  name: 'Grace Hopper',
  email: 'grace@example.com',
  company_name: 'Navy',
  personal_number: '+1 555 0100',
  work_number: null,
  website: 'https://example.com',
  street: '1 Main St',
  city: 'Arlington',
  state: 'VA',
  zipcode: '22201',
  country: 'US',
  business_category_id: 3,
  business_category_name: 'Computing',
  group_id: 306,
  referrer_id: 9,
  referrer_name: 'Ada',
  join_date: '2024-02-29',
  image_sha256: 'abc',
  created_at: new Date('2024-03-05T07:08:09.987Z'),
  updated_at: new Date('2025-12-31T23:59:59.001Z'),
};

const empty: ContactRecordLike = {
  ...record,
  email: null,
  company_name: null,
  personal_number: null,
  street: null,
  city: null,
  state: null,
  zipcode: null,
  country: null,
  business_category_id: null,
  business_category_name: null,
  group_id: null,
  referrer_id: null,
  referrer_name: null,
};

describe('toContactV3', () => {
  it('gives the published object, key for key and in order, without user_id by default', () => {
    const contact = toContactV3(record);
    expect(Object.keys(contact)).toEqual(V3_CONTACT_KEYS);
    expect(JSON.stringify(contact)).toBe(
      '{"id":42,"name":"Grace Hopper","email":"grace@example.com","personal_number":"+1 555 0100","work_number":null,' +
        '"street":"1 Main St","city":"Arlington","state":"VA","zipcode":"22201","address":"1 Main St Arlington VA 22201",' +
        '"company":"Navy","business_category_id":3,"business_category_name":"Computing","referrer_id":9,' +
        '"referrer_name":"Ada","group_id":"306","created_at":"2024-03-05 07:08:09","updated_at":"2025-12-31 23:59:59"}',
    );
  });

  it('puts user_id (the owner) between group_id and created_at when asked', () => {
    const contact = toContactV3(record, { withUserId: true });
    expect(Object.keys(contact)).toEqual(V3_CONTACT_KEYS_WITH_OWNER);
    expect(contact.user_id).toBe(7);
  });

  it('never gives null for email, address, the names or group_id: "" instead, and "   " for no address', () => {
    const contact = toContactV3(empty);
    expect(contact).toMatchObject({
      email: '',
      address: '   ',
      business_category_name: '',
      referrer_name: '',
      group_id: '',
      street: null,
      company: null,
      business_category_id: null,
      referrer_id: null,
    });
    expect(contact.address).toHaveLength(3);
    expect(contact).not.toHaveProperty('country');
    expect(contact).not.toHaveProperty('website');
  });

  it.each([
    [{ street: '1 Main St' }, '1 Main St   '],
    [{ city: 'Paris' }, ' Paris  '],
    [{ state: 'IDF', zipcode: '75001' }, '  IDF 75001'],
    [{ zipcode: '75001' }, '   75001'],
  ])('joins the address parts %j as %j', (parts, address) => {
    expect(toContactV3({ ...empty, ...parts }).address).toBe(address);
  });
});

describe('summarizeFieldErrors (Laravel message)', () => {
  it('gives the first message, then how many others there are', () => {
    expect(summarizeFieldErrors({ name: ['A.'] })).toBe('A.');
    expect(summarizeFieldErrors({ name: ['A.'], email: ['B.'] })).toBe('A. (and 1 more error)');
    expect(summarizeFieldErrors({ name: ['A.', 'C.'], email: ['B.'] })).toBe('A. (and 2 more errors)');
  });
});
