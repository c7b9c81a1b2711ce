import { beforeAll, describe, expect, it } from 'vitest';
import {
  aCategory,
  aClient,
  aContact,
  aGroup,
  aMember,
  type Client,
  JPEG,
  manyContacts,
  multipart,
  PNG,
} from './support/factories';
import { useStack } from './support/use-stack';
import { V3_CONTACT_KEYS, V3_CONTACT_KEYS_WITH_OWNER } from './support/v3-contract';

/** /v3/contacts (deprecated): exact shapes and every rule, against real PostgreSQL and a real auth server. */
type ContactV3 = Record<string, unknown> & { id: number };
type Laravel422 = { message: string; errors: Record<string, string[]> };

const TIMESTAMP = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/;

/** The row's timestamp as v3 must print it: UTC, to the second. */
const v3Time = (date: Date) => date.toISOString().slice(0, 19).replace('T', ' ');

const world = useStack();

async function postForm(client: Client, path: string, fields: Record<string, string>, method = 'POST') {
  const response = await client.request(path, { method, body: new URLSearchParams(fields) });
  return { status: response.status, body: (await response.json()) as ContactV3 & Laravel422 };
}

describe('POST /v3/contacts: the golden create answer', () => {
  it('answers 201 with every key in the published order, types and formats exact (form parameters)', async () => {
    const category = await aCategory(world.stack.db);
    const referrer = await aMember(world.stack.db);
    const group = await aGroup(world.stack.db, [world.client.member]);
    const { status, body } = await postForm(world.client, '/v3/contacts', {
      name: 'Grace Hopper',
      email: 'grace@example.com',
      company_name: 'Navy',
      personal_number: '+1 555 0100',
      work_number: '+1 555 0199',
      website: 'https://example.com/grace',
      address: '1 Main St',
      city: 'Arlington',
      state: 'VA',
      zipcode: '22201',
      country: 'US',
      business_category_id: String(category.id),
      group_id: String(group.id),
      join_date: '2024-02-29',
      referrer_id: String(referrer.id),
    });
    expect(status).toBe(201);
    expect(Object.keys(body)).toEqual(V3_CONTACT_KEYS_WITH_OWNER);
    const row = await world.stack.db('contacts').where({ id: body.id }).first();
    expect(body).toStrictEqual({
      id: row!.id,
      name: 'Grace Hopper',
      email: 'grace@example.com',
      personal_number: '+1 555 0100',
      work_number: '+1 555 0199',
      street: '1 Main St',
      city: 'Arlington',
      state: 'VA',
      zipcode: '22201',
      address: '1 Main St Arlington VA 22201',
      company: 'Navy',
      business_category_id: category.id,
      business_category_name: category.name,
      referrer_id: referrer.id,
      referrer_name: referrer.name,
      group_id: String(group.id),
      user_id: world.client.member.id,
      created_at: v3Time(row!.created_at),
      updated_at: v3Time(row!.updated_at),
    });
    expect(typeof body.id).toBe('number');
    expect(body.group_id).toMatch(/^\d+$/);
    expect(body.created_at).toMatch(TIMESTAMP);
    // What v3 does not show is still stored.
    expect(row).toMatchObject({ country: 'US', website: 'https://example.com/grace', join_date: '2024-02-29' });
  });

  it('answers the minimal contact with "" for email, address parts joined as three spaces, names and group', async () => {
    const { status, body } = await world.client.json<ContactV3>('/v3/contacts', {
      method: 'POST',
      json: { name: 'Minimal' },
    });
    expect(status).toBe(201);
    expect(Object.keys(body)).toEqual(V3_CONTACT_KEYS_WITH_OWNER);
    expect(body).toMatchObject({
      name: 'Minimal',
      email: '',
      personal_number: null,
      work_number: null,
      street: null,
      city: null,
      state: null,
      zipcode: null,
      address: '   ',
      company: null,
      business_category_id: null,
      business_category_name: '',
      referrer_id: null,
      referrer_name: '',
      group_id: '',
      user_id: world.client.member.id,
    });
    expect(body.address).toBe('   ');
    expect(body.updated_at).toMatch(TIMESTAMP);
  });

  it('accepts multipart/form-data with an image, and refuses a file that is not JPEG or PNG (422)', async () => {
    const response = await world.client.request('/v3/contacts', {
      method: 'POST',
      body: multipart({ name: 'Pictured', city: 'Oslo' }, { bytes: PNG, filename: 'a.png', type: 'image/png' }),
    });
    expect(response.status).toBe(201);
    const body = (await response.json()) as ContactV3;
    expect(body.address).toBe(' Oslo  ');
    expect(await world.stack.db('contact_images').where({ contact_id: body.id }).first()).toMatchObject({
      content_type: 'image/png',
    });

    const refused = await world.client.request('/v3/contacts', {
      method: 'POST',
      body: multipart(
        { name: 'Not a picture' },
        { bytes: Buffer.from('GIF89a....'), filename: 'a.png', type: 'image/png' },
      ),
    });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as Laravel422).errors.image).toEqual(['The image must be a JPEG or PNG file.']);
  });

  it('takes `street` over `address` when both are sent (a v3 object sent back keeps its street)', async () => {
    const { body } = await world.client.json<ContactV3>('/v3/contacts', {
      method: 'POST',
      json: { name: 'Both', street: '2 Side St', address: '2 Side St Paris  ', city: 'Paris' },
    });
    expect(body).toMatchObject({ street: '2 Side St', address: '2 Side St Paris  ' });
  });
});

describe('PATCH /v3/contacts/{id}: a v3 object sent back', () => {
  it('keeps an edit of `company`, the name the answer gives the company; `company_name` wins when both are sent', async () => {
    const { body: created } = await world.client.json<ContactV3>('/v3/contacts', {
      method: 'POST',
      json: { name: 'Sent back', company_name: 'OldCo' },
    });
    const { body: edited } = await world.client.json<ContactV3>(`/v3/contacts/${created.id}`, {
      method: 'PATCH',
      body: new URLSearchParams({ company: 'NewCo' }),
    });
    expect(edited.company).toBe('NewCo');
    const { body: both } = await world.client.json<ContactV3>(`/v3/contacts/${created.id}`, {
      method: 'PATCH',
      json: { ...edited, company_name: 'Named Co' },
    });
    expect(both.company).toBe('Named Co');
  });
});

describe('POST /v3/contacts: upsert by e-mail', () => {
  it('updates the contact with the same e-mail (any case) instead: 200, same id, user_id, unsent fields kept', async () => {
    const owner = await aClient(world.stack);
    const first = await postForm(owner, '/v3/contacts', { name: 'First', email: 'Up@Example.com', city: 'Rome' });
    expect(first.status).toBe(201);
    const second = await postForm(owner, '/v3/contacts', { name: 'Second', email: 'up@example.com', state: 'LZ' });
    expect(second.status).toBe(200);
    expect(Object.keys(second.body)).toEqual(V3_CONTACT_KEYS_WITH_OWNER);
    expect(second.body).toMatchObject({
      id: first.body.id,
      name: 'Second',
      email: 'up@example.com',
      city: 'Rome',
      state: 'LZ',
      user_id: owner.member.id,
    });
    expect(await world.stack.db('contacts').where({ owner_id: owner.member.id })).toHaveLength(1);
  });

  it("does not update another member's contact with that e-mail: each member has their own address book", async () => {
    const one = await aClient(world.stack);
    const two = await aClient(world.stack);
    const a = await postForm(one, '/v3/contacts', { name: 'Mine', email: 'shared@example.com' });
    const b = await postForm(two, '/v3/contacts', { name: 'Also mine', email: 'shared@example.com' });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body.id).not.toBe(a.body.id);
    expect(b.body.user_id).toBe(two.member.id);
  });

  it('is race-free: 20 parallel POSTs with one new e-mail leave exactly one contact', async () => {
    const racer = await aClient(world.stack);
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        i % 2
          ? postForm(racer, '/v3/contacts', { name: `Racer ${i}`, email: 'race@example.com' })
          : racer
              .json<ContactV3>('/v3/contacts', {
                method: 'POST',
                json: { name: `Racer ${i}`, email: 'RACE@example.com' },
              })
              .then(({ status, body }) => ({ status, body })),
      ),
    );
    expect(responses.filter((response) => response.status === 201)).toHaveLength(1);
    expect(responses.filter((response) => response.status === 200)).toHaveLength(19);
    expect(new Set(responses.map((response) => response.body.id)).size).toBe(1);
    expect(await world.stack.db('contacts').where({ owner_id: racer.member.id })).toHaveLength(1);
  });

  it('updates, never refuses, when a v4 create of the same new e-mail wins the race (v4 takes no e-mail lock)', async () => {
    const racer = await aClient(world.stack);
    const v3Statuses: number[] = [];
    for (let round = 0; round < 10; round++) {
      const email = `mixed-race-${round}@example.com`;
      const responses = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          i % 3 === 0
            ? racer.json('/v4/contacts', { method: 'POST', json: { name: `V4 ${i}`, email } })
            : postForm(racer, '/v3/contacts', { name: `V3 ${i}`, email }),
        ),
      );
      v3Statuses.push(...responses.filter((_, i) => i % 3 !== 0).map((response) => response.status));
      expect(await world.stack.db('contacts').where({ owner_id: racer.member.id, email })).toHaveLength(1);
    }
    // 201 for the v3 request that created it, 200 for those that found it; before, 422 "taken" now and then.
    expect(v3Statuses.filter((status) => status !== 200 && status !== 201)).toEqual([]);
  });
});

describe('POST /v3/contacts: references', () => {
  it('puts the contact in a group the caller belongs to, where the other members see it', async () => {
    const friend = await aClient(world.stack);
    const group = await aGroup(world.stack.db, [world.client.member, friend.member]);
    const { status, body } = await postForm(world.client, '/v3/contacts', {
      name: 'Guest',
      group_id: String(group.id),
    });
    expect(status).toBe(201);
    expect(body.group_id).toBe(String(group.id));
    const guests = await friend.json<{ data: Array<{ id: number }> }>(`/v4/groups/${group.id}/guests`);
    expect(guests.body.data.map((contact) => contact.id)).toContain(body.id);
  });

  it('refuses a group the caller does not belong to with 403 {"message"}, storing nothing', async () => {
    const foreign = await aGroup(world.stack.db, [await aMember(world.stack.db)]);
    const { status, body } = await postForm(world.client, '/v3/contacts', {
      name: 'Refused guest',
      email: 'refused-guest@example.com',
      group_id: String(foreign.id),
    });
    expect(status).toBe(403);
    expect(body).toEqual({ message: 'You are not a member of this group.' });
    expect(await world.stack.db('contacts').where({ name: 'Refused guest' })).toHaveLength(0);
  });

  it('refuses an unknown referrer_id, group_id or business_category_id with 422', async () => {
    for (const field of ['referrer_id', 'group_id', 'business_category_id']) {
      const { status, body } = await postForm(world.client, '/v3/contacts', {
        name: 'Dangling',
        [field]: '2000000000',
      });
      expect(status, field).toBe(422);
      expect(Object.keys(body)).toEqual(['message', 'errors']);
      expect(Object.keys(body.errors)).toEqual([field]);
      expect(body.message).toBe(body.errors[field]![0]);
    }
    expect(await world.stack.db('contacts').where({ name: 'Dangling' })).toHaveLength(0);
  });

  it("shows the referring member's name", async () => {
    const referrer = await aMember(world.stack.db);
    const { body } = await world.client.json<ContactV3>('/v3/contacts', {
      method: 'POST',
      json: { name: 'Referred', referrer_id: referrer.id },
    });
    expect(body).toMatchObject({ referrer_id: referrer.id, referrer_name: referrer.name });
  });
});

describe('POST /v3/contacts: validation (Laravel bodies)', () => {
  it.each([
    [{}, 'name'],
    [{ name: '   ' }, 'name'],
    [{ name: 'A', email: 'not-an-email' }, 'email'],
    [{ name: 'A', personal_number: '1234567890123456' }, 'personal_number'],
    [{ name: 'A', work_number: '1234567890123456' }, 'work_number'],
    [{ name: 'A', zipcode: '1234567' }, 'zipcode'],
    [{ name: 'A', website: 'example.com' }, 'website'],
    [{ name: 'A', join_date: '2024-02-30' }, 'join_date'],
    [{ name: 'A', join_date: '0000-01-01' }, 'join_date'],
    [{ name: 'A', business_category_id: 'abc' }, 'business_category_id'],
    [{ name: 'A', group_id: '2147483648' }, 'group_id'],
    [{ name: 'A', referrer_id: 'abc' }, 'referrer_id'],
    [{ name: 'A', referrer_id: 1.5 }, 'referrer_id'],
    [{ name: 'A', group_id: '-3' }, 'group_id'],
    [{ name: 'A', street: 'x'.repeat(256) }, 'street'],
  ])('refuses %j with 422 {"message", "errors": {%s}}', async (input, field) => {
    const { status, body } = await world.client.json<Laravel422>('/v3/contacts', { method: 'POST', json: input });
    expect(status).toBe(422);
    expect(Object.keys(body)).toEqual(['message', 'errors']);
    expect(Object.keys(body.errors)).toEqual([field]);
    expect(body.errors[field]).toEqual([expect.any(String)]);
    expect(body.message).toBe(body.errors[field]![0]);
  });

  it('summarises several problems as Laravel does: the first message "(and N more errors)"', async () => {
    const { status, body } = await world.client.json<Laravel422>('/v3/contacts', {
      method: 'POST',
      json: { email: 'nope', zipcode: '1234567' },
    });
    expect(status).toBe(422);
    expect(body).toEqual({
      message: 'The name field is required. (and 2 more errors)',
      errors: {
        name: ['The name field is required.'],
        email: ['The email must be a valid email address.'],
        zipcode: ['The zipcode must not be greater than 6 characters.'],
      },
    });
  });
});

describe('PATCH /v3/contacts/{id}', () => {
  it('changes only the fields sent and answers the v3 object without user_id', async () => {
    const created = await postForm(world.client, '/v3/contacts', {
      name: 'Patchy',
      email: 'patchy@example.com',
      city: 'Bern',
    });
    const { status, body } = await postForm(
      world.client,
      `/v3/contacts/${created.body.id}`,
      { city: '', zipcode: '3000', address: 'Gasse 1' },
      'PATCH',
    );
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(V3_CONTACT_KEYS);
    expect(body).toMatchObject({
      id: created.body.id,
      name: 'Patchy',
      email: 'patchy@example.com',
      street: 'Gasse 1',
      city: null,
      zipcode: '3000',
      address: 'Gasse 1   3000',
    });
    const row = await world.stack.db('contacts').where({ id: created.body.id }).first();
    expect(body.updated_at).toBe(v3Time(row!.updated_at));
  });

  it('accepts JSON and multipart (with an image)', async () => {
    const { id } = (await postForm(world.client, '/v3/contacts', { name: 'Formats' })).body;
    const json = await world.client.json<ContactV3>(`/v3/contacts/${id}`, { method: 'PATCH', json: { state: 'TI' } });
    expect(json.body.state).toBe('TI');
    const form = await world.client.request(`/v3/contacts/${id}`, {
      method: 'PATCH',
      body: multipart({ work_number: '123' }, { bytes: JPEG, filename: 'a.jpg', type: 'image/jpeg' }),
    });
    expect(form.status).toBe(200);
    expect(((await form.json()) as ContactV3).work_number).toBe('123');
    expect((await world.stack.db('contact_images').where({ contact_id: id }).first())!.content_type).toBe('image/jpeg');
  });

  it("refuses an e-mail another of the caller's contacts holds, with the exact Laravel body", async () => {
    await postForm(world.client, '/v3/contacts', { name: 'Holder', email: 'taken@example.com' });
    const { id } = (await postForm(world.client, '/v3/contacts', { name: 'Wants it' })).body;
    const { status, body } = await postForm(
      world.client,
      `/v3/contacts/${id}`,
      { email: 'TAKEN@example.com' },
      'PATCH',
    );
    expect(status).toBe(422);
    expect(JSON.stringify(body)).toBe(
      '{"message":"The email has already been taken.","errors":{"email":["The email has already been taken."]}}',
    );
    // Its own e-mail, in another case, is not a conflict.
    const same = await postForm(world.client, `/v3/contacts/${id}`, { email: 'mine@example.com' }, 'PATCH');
    expect((await postForm(world.client, `/v3/contacts/${id}`, { email: 'MINE@example.com' }, 'PATCH')).status).toBe(
      200,
    );
    expect(same.status).toBe(200);
  });

  it('refuses a join_date PostgreSQL cannot store (year 0000) with 422, keeping the stored one', async () => {
    const { id } = (await postForm(world.client, '/v3/contacts', { name: 'Dated v3', join_date: '2020-01-01' })).body;
    for (const join_date of ['0000-01-01', '0000-02-29']) {
      const { status, body } = await postForm(world.client, `/v3/contacts/${id}`, { join_date }, 'PATCH');
      expect(status, join_date).toBe(422);
      expect(Object.keys(body.errors)).toEqual(['join_date']);
    }
    expect((await world.stack.db('contacts').where({ id }).first())?.join_date).toBe('2020-01-01');
  });

  it('never empties the name (422), and clears a referrer sent empty', async () => {
    const referrer = await aMember(world.stack.db);
    const { id } = (await postForm(world.client, '/v3/contacts', { name: 'Named', referrer_id: String(referrer.id) }))
      .body;
    expect((await postForm(world.client, `/v3/contacts/${id}`, { name: '' }, 'PATCH')).status).toBe(422);
    const cleared = await postForm(world.client, `/v3/contacts/${id}`, { referrer_id: '' }, 'PATCH');
    expect(cleared.body).toMatchObject({ name: 'Named', referrer_id: null, referrer_name: '' });
  });

  it('answers 404 {"message"} for another member\'s contact, a missing one and a non-numeric id', async () => {
    const theirs = await aContact(world.stack.db, await aMember(world.stack.db));
    for (const id of [theirs, 2_000_000_000, 'abc']) {
      const { status, body } = await postForm(world.client, `/v3/contacts/${id}`, { name: 'Hijack' }, 'PATCH');
      expect(status, String(id)).toBe(404);
      expect(Object.keys(body)).toEqual(['message']);
    }
    expect((await world.stack.db('contacts').where({ id: theirs }).first())!.name).not.toBe('Hijack');
  });

  it('is also reachable as POST with _method=PATCH (Laravel method spoofing)', async () => {
    const { id } = (await postForm(world.client, '/v3/contacts', { name: 'Spoofed' })).body;
    const { status, body } = await postForm(world.client, `/v3/contacts/${id}`, { _method: 'PATCH', city: 'Graz' });
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(V3_CONTACT_KEYS);
    expect(body.city).toBe('Graz');
    expect((await postForm(world.client, `/v3/contacts/${id}`, { city: 'Linz' })).status).toBe(405);
  });
});

describe('DELETE /v3/contacts/{id}', () => {
  it('deletes for the creator: 200 {"message":"success"}', async () => {
    const { id } = (await postForm(world.client, '/v3/contacts', { name: 'Doomed' })).body;
    const response = await world.client.request(`/v3/contacts/${id}`, { method: 'DELETE' });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('{"message":"success"}');
    expect(await world.stack.db('contacts').where({ id })).toHaveLength(0);
  });

  it('refuses a group guest the caller did not create (403) and one they cannot see (404)', async () => {
    const creator = await aClient(world.stack);
    const friend = await aClient(world.stack);
    const stranger = await aClient(world.stack);
    const group = await aGroup(world.stack.db, [creator.member, friend.member]);
    const guest = (await postForm(creator, '/v3/contacts', { name: 'Guest', group_id: String(group.id) })).body.id;

    const forbidden = await friend.json(`/v3/contacts/${guest}`, { method: 'DELETE' });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual({ message: 'Only the member who created this contact can delete it.' });
    const hidden = await stranger.json(`/v3/contacts/${guest}`, { method: 'DELETE' });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ message: 'No such contact.' });
    expect((await friend.json('/v3/contacts/2000000000', { method: 'DELETE' })).status).toBe(404);
    expect(await world.stack.db('contacts').where({ id: guest })).toHaveLength(1);

    // POST with _method=DELETE follows the same rule.
    expect((await postForm(friend, `/v3/contacts/${guest}`, { _method: 'DELETE' })).status).toBe(403);
    expect((await postForm(creator, `/v3/contacts/${guest}`, { _method: 'DELETE' })).body).toEqual({
      message: 'success',
    });
  });
});

describe('GET /v3/contacts and GET /v3/contacts/{offset}/{limit}', () => {
  let lister: Client;
  let full: ContactV3[];
  beforeAll(async () => {
    lister = await aClient(world.stack);
    const group = await aGroup(world.stack.db, [lister.member]);
    for (let i = 0; i < 23; i++) {
      await aContact(world.stack.db, lister.member, {
        name: `Listed ${i}`,
        ...(i % 3 === 0 ? { group_id: group.id, city: 'Kyiv' } : {}),
      });
    }
    // Someone else's contact, even a guest of the lister's group, is not in the lister's list.
    const friend = await aMember(world.stack.db);
    await aContact(world.stack.db, friend, { name: 'Friend guest', group_id: group.id });
    full = (await lister.json<ContactV3[]>('/v3/contacts')).body;
  });

  it("answers every one of the caller's own contacts, as a bare array in id order, without user_id", async () => {
    const ids = await world.stack.db('contacts').where({ owner_id: lister.member.id }).orderBy('id').pluck('id');
    expect(Array.isArray(full)).toBe(true);
    expect(full.map((contact) => contact.id)).toEqual(ids);
    expect(full).toHaveLength(23);
    for (const contact of full) expect(Object.keys(contact)).toEqual(V3_CONTACT_KEYS);
    expect(full[0]).toMatchObject({ name: 'Listed 0', address: ' Kyiv  ', email: '' });
    expect(full[1]).toMatchObject({ address: '   ', group_id: '' });
  });

  it('answers every contact however many, read and sent a page at a time (1,201: pages of 500)', async () => {
    const many = await aClient(world.stack);
    const ids = await manyContacts(world.stack.db, many.member, 1201, { prefix: 'Many' });
    const response = await many.json<ContactV3[]>('/v3/contacts');
    expect(response.status).toBe(200);
    expect(response.response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.response.headers.get('cache-control')).toBe('private, no-cache');
    expect(response.body.map((contact) => contact.id)).toEqual(ids);
    expect(response.body[1200]).toMatchObject({ name: 'Many 1201' });
    for (const contact of [response.body[0], response.body[500]])
      expect(Object.keys(contact!)).toEqual(V3_CONTACT_KEYS);
  });

  it('answers an empty array for a member without contacts', async () => {
    const nobody = await aClient(world.stack);
    const response = await nobody.request('/v3/contacts');
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('[]');
  });

  it.each([
    [0, 1],
    [0, 7],
    [7, 7],
    [21, 7],
    [22, 1],
    [23, 5],
    [500, 10],
    [0, 1000],
  ])('pages offset=%i limit=%i as the same slice of the full list', async (offset, limit) => {
    const { status, body } = await lister.json<ContactV3[]>(`/v3/contacts/${offset}/${limit}`);
    expect(status).toBe(200);
    expect(body).toEqual(full.slice(offset, offset + limit));
  });

  it('walks the whole list page by page', async () => {
    const walked: ContactV3[] = [];
    for (let offset = 0; ; offset += 5) {
      const page = (await lister.json<ContactV3[]>(`/v3/contacts/${offset}/5`)).body;
      walked.push(...page);
      if (page.length < 5) break;
    }
    expect(walked).toEqual(full);
  });

  it.each([
    ['-1/10', 'offset'],
    ['1.5/10', 'offset'],
    ['abc/10', 'offset'],
    ['1e3/10', 'offset'],
    ['0/0', 'limit'],
    ['0/1001', 'limit'],
    ['0/1.5', 'limit'],
    ['0/abc', 'limit'],
    ['0/-1', 'limit'],
    ['0/%20', 'limit'],
  ])('refuses /v3/contacts/%s with 422 naming %s', async (path, field) => {
    const { status, body } = await lister.json<Laravel422>(`/v3/contacts/${path}`);
    expect(status).toBe(422);
    expect(Object.keys(body)).toEqual(['message', 'errors']);
    expect(Object.keys(body.errors)).toEqual([field]);
  });

  it('names both when both are wrong', async () => {
    const { body } = await lister.json<Laravel422>('/v3/contacts/-1/0');
    expect(body).toEqual({
      message: 'The offset must be an integer from 0 to 999999999999999. (and 1 more error)',
      errors: {
        offset: ['The offset must be an integer from 0 to 999999999999999.'],
        limit: ['The limit must be an integer between 1 and 1000.'],
      },
    });
  });
});
