import { describe, expect, it } from 'vitest';
import {
  buildOpenApiDocument,
  type ContactRecordLike,
  contactV4,
  decodeCursor,
  encodeCursor,
  listContactsQueryV4,
  toContactV4,
  validate,
} from '../src/index';

const record: ContactRecordLike = {
  id: 7,
  owner_id: 1,
  name: 'Ada',
  email: 'ada@example.com',
  company_name: 'Engines',
  personal_number: null,
  work_number: '555',
  website: null,
  street: '1 Main St',
  city: 'London',
  state: null,
  zipcode: 'N1',
  country: 'UK',
  business_category_id: 2,
  business_category_name: 'Science',
  group_id: 3,
  referrer_id: null,
  referrer_name: null,
  join_date: '2024-02-29',
  image_sha256: 'abc',
  created_at: new Date('2024-03-01T10:00:00.123Z'),
  updated_at: new Date('2024-03-02T11:00:00Z'),
};

describe('v4 serializer', () => {
  it('shows exactly the v4 fields, address from the street, image_url absolute', () => {
    const contact = toContactV4(record, { publicUrl: 'https://api.example.com/' });
    expect(contact).toEqual({
      id: 7,
      name: 'Ada',
      email: 'ada@example.com',
      company_name: 'Engines',
      personal_number: null,
      work_number: '555',
      website: null,
      address: '1 Main St',
      city: 'London',
      state: null,
      zipcode: 'N1',
      country: 'UK',
      business_category_id: 2,
      business_category_name: 'Science',
      group_id: 3,
      join_date: '2024-02-29',
      image_url: 'https://api.example.com/v4/contacts/7/image',
      created_at: '2024-03-01T10:00:00.123Z',
      updated_at: '2024-03-02T11:00:00.000Z',
    });
    expect(contactV4.safeParse(contact).success).toBe(true);
    expect(toContactV4({ ...record, image_sha256: null }, { publicUrl: 'http://x' }).image_url).toBeNull();
  });
});

describe('list query', () => {
  it('round-trips cursors and refuses forged ones', () => {
    expect(decodeCursor(encodeCursor({ after_id: 42 }))).toEqual({ after_id: 42 });
    expect(decodeCursor('garbage')).toBeUndefined();
    expect(decodeCursor(Buffer.from('{"a":-1}').toString('base64url'))).toBeUndefined();
    expect(decodeCursor(Buffer.from('{"a":2147483647}').toString('base64url'))).toEqual({ after_id: 2147483647 });
    expect(decodeCursor(Buffer.from('{"a":2147483648}').toString('base64url'))).toBeUndefined();
  });

  it('reads limits, dates and ids from strings', () => {
    const result = validate(listContactsQueryV4, {
      limit: '1000',
      group_id: '4',
      updated_since: '2024-01-01T00:00:00+02:00',
    });
    expect(result).toEqual({
      ok: true,
      value: { limit: 1000, group_id: 4, updated_since: new Date('2023-12-31T22:00:00Z') },
    });
    expect(validate(listContactsQueryV4, { limit: '1001' }).ok).toBe(false);
  });

  it('reads group_id in the range of a row id (a larger one failed the query: 500)', () => {
    expect(validate(listContactsQueryV4, { group_id: '2147483647' })).toEqual({
      ok: true,
      value: { group_id: 2147483647 },
    });
    for (const group_id of ['2147483648', '9999999999', '0', '-1', '1.5']) {
      expect(validate(listContactsQueryV4, { group_id }), group_id).toEqual({
        ok: false,
        fields: { group_id: ['The group id must be an integer from 1 to 2147483647.'] },
      });
    }
  });
});

describe('OpenAPI document', () => {
  it('is generated from the schemas, with components for inputs and outputs', () => {
    const document = buildOpenApiDocument({
      serverUrl: 'https://api.example.com',
      paths: {},
      dpopAlgorithms: ['ES256'],
    }) as {
      openapi: string;
      components: { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }> };
    };
    expect(document.openapi).toBe('3.1.0');
    expect(document.components.schemas.ContactInput?.required).toEqual(['name']);
    expect(Object.keys(document.components.schemas.Contact?.properties ?? {})).toContain('image_url');
    expect(document.components.schemas.ContactInput?.properties?.zipcode).toEqual({
      anyOf: [{ type: 'string', maxLength: 6, pattern: '^[^\\u0000]*$' }, { type: 'null' }],
    });
  });

  it('names the authorization server at its own URL (AUTH_URL) when it is not the API’s', () => {
    type Document = {
      components: { securitySchemes: { oauth2: { flows: { authorizationCode: Record<string, unknown> } } } };
      paths: Record<string, { servers?: unknown }>;
    };
    const separate = buildOpenApiDocument({
      serverUrl: 'https://api.example.com',
      authUrl: 'https://auth.example.com',
      paths: {},
      dpopAlgorithms: ['ES256'],
    }) as Document;
    expect(separate.components.securitySchemes.oauth2.flows.authorizationCode).toMatchObject({
      authorizationUrl: 'https://auth.example.com/oauth/authorize',
      tokenUrl: 'https://auth.example.com/oauth/token',
    });
    for (const path of ['/oauth/token', '/oauth/introspect', '/oauth/revoke']) {
      expect(separate.paths[path]?.servers).toEqual([{ url: 'https://auth.example.com' }]);
    }
    // One base URL, the usual deployment: nothing per path.
    const shared = buildOpenApiDocument({
      serverUrl: 'https://x.example',
      paths: {},
      dpopAlgorithms: ['ES256'],
    }) as Document;
    expect(shared.paths['/oauth/token']?.servers).toBeUndefined();
    expect(shared.components.securitySchemes.oauth2.flows.authorizationCode.tokenUrl).toBe(
      'https://x.example/oauth/token',
    );
  });

  it('states the input rules the validation applies: dates from year 0001, ids up to the row id range', () => {
    const document = buildOpenApiDocument({
      serverUrl: 'https://api.example.com',
      paths: {},
      dpopAlgorithms: ['ES256'],
    }) as {
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    };
    const input = document.components.schemas.ContactInput?.properties ?? {};
    const joinDate = JSON.stringify(input.join_date);
    expect(joinDate).toContain('"format":"date"');
    expect(joinDate).toContain('(?!0000)');
    expect(joinDate).toContain('A date from 0001-01-01 to 9999-12-31.');
    expect(JSON.stringify(input.group_id)).toContain('"minimum":1,"maximum":2147483647');
  });
});
