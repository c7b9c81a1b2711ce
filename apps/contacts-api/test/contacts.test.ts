import { describe, expect, it } from 'vitest';
import { aCategory, aClient, aContact, aGroup, aMember, manyContacts, multipart } from './support/factories';
import { useStack } from './support/use-stack';

interface Contact {
  id: number;
  [key: string]: unknown;
}
type One = { data: Contact };
type Many = { data: Contact[]; meta: { next_cursor: string | null; limit: number } };
type Failure = { error: { code: string; message: string; fields?: Record<string, string[]> } };

const world = useStack();

describe('POST /v4/contacts', () => {
  it('refuses text with a NUL character (PostgreSQL text cannot hold one) with 422, in a body or a search', async () => {
    for (const json of [
      { name: 'Gr\u0000ace' },
      { name: 'Grace', city: '\u0000' },
      { name: 'Grace', email: 'a\u0000@b.test' },
    ]) {
      const { status, body } = await world.client.json<Failure>('/v4/contacts', { method: 'POST', json });
      expect(status, JSON.stringify(json)).toBe(422);
      expect(body.error.code).toBe('validation_failed');
    }
    for (const method of ['GET', 'HEAD']) {
      const response = await world.client.request('/v4/contacts?q=%00', { method });
      expect(response.status, method).toBe(422);
    }
  });

  it('creates a contact from JSON, answering every v4 field with nulls for what was not sent', async () => {
    const { status, body, response } = await world.client.json<One>('/v4/contacts', {
      method: 'POST',
      json: { name: '  Grace  ', nickname: 'ignored' },
    });
    expect(status).toBe(201);
    expect(response.headers.get('etag')).toMatch(/^"/);
    expect(Object.keys(body.data)).toEqual([
      'id',
      'name',
      'email',
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
      'business_category_name',
      'group_id',
      'join_date',
      'image_url',
      'created_at',
      'updated_at',
    ]);
    expect(body.data).toMatchObject({ name: 'Grace', email: null, address: null, group_id: null, image_url: null });
    expect(body.data.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  });

  it('accepts a URL-encoded form, stores address as the street, and joins the category name', async () => {
    const category = await aCategory(world.stack.db);
    const response = await world.client.request('/v4/contacts', {
      method: 'POST',
      body: new URLSearchParams({
        name: 'Form',
        email: 'form@example.com',
        address: '1 Main St',
        business_category_id: String(category.id),
        join_date: '2024-02-29',
        website: 'https://example.com/x',
        zipcode: '12345',
      }),
    });
    expect(response.status).toBe(201);
    const { data } = (await response.json()) as One;
    expect(data).toMatchObject({
      address: '1 Main St',
      business_category_id: category.id,
      business_category_name: category.name,
      join_date: '2024-02-29',
      zipcode: '12345',
    });
    const row = await world.stack.db('contacts').where({ id: data.id }).first();
    expect(row!.street).toBe('1 Main St');
  });

  it.each([
    [{}, 'name'],
    [{ name: '   ' }, 'name'],
    [{ name: 'x'.repeat(256) }, 'name'],
    [{ name: 'A', email: 'not-an-email' }, 'email'],
    [{ name: 'A', personal_number: '1234567890123456' }, 'personal_number'],
    [{ name: 'A', work_number: '1234567890123456' }, 'work_number'],
    [{ name: 'A', zipcode: '1234567' }, 'zipcode'],
    [{ name: 'A', website: 'example.com' }, 'website'],
    [{ name: 'A', website: 'ftp://example.com' }, 'website'],
    [{ name: 'A', join_date: '2024-02-30' }, 'join_date'],
    [{ name: 'A', join_date: '24-01-01' }, 'join_date'],
    [{ name: 'A', business_category_id: 1.5 }, 'business_category_id'],
    [{ name: 'A', business_category_id: 'abc' }, 'business_category_id'],
    [{ name: 'A', group_id: true }, 'group_id'],
    [{ name: 'A', business_category_id: 999_999 }, 'business_category_id'],
    [{ name: 'A', group_id: 999_999 }, 'group_id'],
  ])('refuses %j with 422 and a message for %s', async (input, field) => {
    const { status, body } = await world.client.json<Failure>('/v4/contacts', { method: 'POST', json: input });
    expect(status).toBe(422);
    expect(body.error.code).toBe('validation_failed');
    expect(body.error.fields?.[field]?.[0]).toEqual(expect.any(String));
  });

  it('refuses a join_date PostgreSQL cannot store (year 0000) with 422 on every v4 write, writing nothing', async () => {
    const writer = await aClient(world.stack);
    const existing = await aContact(world.stack.db, writer.member, { name: 'Dated', join_date: '2020-01-01' });
    for (const join_date of ['0000-01-01', '0000-02-29']) {
      const answers = [
        await writer.request('/v4/contacts', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'x', join_date }),
        }),
        await writer.request('/v4/contacts', { method: 'POST', body: new URLSearchParams({ name: 'x', join_date }) }),
        await writer.request('/v4/contacts', { method: 'POST', body: multipart({ name: 'x', join_date }) }),
        await writer.request(`/v4/contacts/${existing}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ join_date }),
        }),
      ];
      for (const answer of answers) {
        expect(answer.status, join_date).toBe(422);
        const { error } = (await answer.json()) as Failure;
        expect(error.fields?.join_date).toEqual([
          'The join date must be a real date from 0001-01-01 to 9999-12-31, as YYYY-MM-DD.',
        ]);
      }
    }
    expect(await world.stack.db('contacts').where({ owner_id: writer.member.id }).pluck('name')).toEqual(['Dated']);
    expect((await writer.json<One>(`/v4/contacts/${existing}`)).body.data.join_date).toBe('2020-01-01');
  });

  it.each(['[1,2]', '[]', '"x"', 'null', '42'])(
    'refuses the JSON body %s with 400: no route takes anything but an object',
    async (body) => {
      const response = await world.client.request('/v4/contacts', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as Failure).error).toEqual({
        code: 'bad_request',
        message: 'The body is not a JSON object.',
      });
    },
  );

  it('refuses malformed JSON with 400, never 500', async () => {
    const response = await world.client.request('/v4/contacts', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name": ',
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as Failure).error.code).toBe('bad_request');
  });

  it('links a contact to a group only for members of the group (403 otherwise)', async () => {
    const mine = await aGroup(world.stack.db, [world.client.member]);
    const theirs = await aGroup(world.stack.db, [await aMember(world.stack.db)]);
    const ok = await world.client.json<One>('/v4/contacts', {
      method: 'POST',
      json: { name: 'In group', group_id: String(mine.id) },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.data.group_id).toBe(mine.id);
    const refused = await world.client.json<Failure>('/v4/contacts', {
      method: 'POST',
      json: { name: 'No', group_id: theirs.id },
    });
    expect(refused.status).toBe(403);
    expect(await world.stack.db('contacts').where({ name: 'No' })).toHaveLength(0);
  });

  it('takes a contact sent back as read after its owner left its group; moving it to that group again is refused', async () => {
    const client = await aClient(world.stack);
    const group = await aGroup(world.stack.db, [client.member]);
    const created = await client.json<One>('/v4/contacts', {
      method: 'POST',
      json: { name: 'Kept in a group', group_id: group.id },
    });
    const elsewhere = await client.json<One>('/v4/contacts', { method: 'POST', json: { name: 'Not in it' } });
    await world.stack.db('group_members').where({ group_id: group.id, member_id: client.member.id }).delete();

    const read = await client.json<One>(`/v4/contacts/${created.body.data.id}`);
    const sentBack = await client.json<One>(`/v4/contacts/${created.body.data.id}`, {
      method: 'POST',
      json: { ...read.body.data, city: 'Elsewhere' },
    });
    expect(sentBack.status).toBe(200);
    expect(sentBack.body.data).toMatchObject({ city: 'Elsewhere', group_id: group.id });
    const batch = await client.json('/v4/contacts/batch', {
      method: 'POST',
      json: { operations: [{ op: 'update', id: created.body.data.id, contact: { ...read.body.data, city: 'Again' } }] },
    });
    expect(batch.status).toBe(200);
    const v3 = await client.request(`/v3/contacts/${created.body.data.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ group_id: group.id, city: 'Third' }),
    });
    expect(v3.status).toBe(200);

    const moved = await client.json<Failure>(`/v4/contacts/${elsewhere.body.data.id}`, {
      method: 'POST',
      json: { group_id: group.id },
    });
    expect(moved.status).toBe(403);
  });

  it('refuses a second contact with the same e-mail (any case) with 422', async () => {
    await world.client.json('/v4/contacts', { method: 'POST', json: { name: 'One', email: 'Same@Example.com' } });
    const { status, body } = await world.client.json<Failure>('/v4/contacts', {
      method: 'POST',
      json: { name: 'Two', email: 'same@example.com' },
    });
    expect(status).toBe(422);
    expect(body.error.fields?.email).toEqual(['The email has already been taken.']);
  });

  it('stores an address in its composed form (NFC), so that an accented one typed two ways is one address', async () => {
    const composed = `Jos\u00e9.${Date.now()}@example.com`;
    const created = await world.client.json<{ data: { email: string } }>('/v4/contacts', {
      method: 'POST',
      json: { name: 'Composed', email: composed.normalize('NFD') },
    });
    expect(created.status).toBe(201);
    expect(created.body.data.email).toBe(composed);
    const again = await world.client.json<Failure>('/v4/contacts', {
      method: 'POST',
      json: { name: 'Twice', email: composed.toLowerCase() },
    });
    expect(again.status).toBe(422);
    expect(again.body.error.fields?.email).toEqual(['The email has already been taken.']);
  });
});

describe('GET /v4/contacts/{id} and POST /v4/contacts/{id}', () => {
  it("does not show another member's contact, nor a missing one (404)", async () => {
    const other = await aMember(world.stack.db);
    const theirs = await aContact(world.stack.db, other);
    expect((await world.client.json(`/v4/contacts/${theirs}`)).status).toBe(404);
    expect((await world.client.json('/v4/contacts/2147483000')).status).toBe(404);
    expect((await world.client.json('/v4/contacts/abc')).status).toBe(404);
    expect(
      (await world.client.json(`/v4/contacts/${theirs}`, { method: 'POST', json: { name: 'Hijack' } })).status,
    ).toBe(404);
  });

  it('changes only the fields sent, clears those sent empty or null, and never empties the name', async () => {
    const created = await world.client.json<One>('/v4/contacts', {
      method: 'POST',
      json: { name: 'Partial', email: 'partial@example.com', city: 'Paris', country: 'FR' },
    });
    const id = created.body.data.id;
    const updated = await world.client.json<One>(`/v4/contacts/${id}`, {
      method: 'POST',
      json: { city: 'Lyon', country: '', email: null },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ name: 'Partial', city: 'Lyon', country: null, email: null });
    expect((updated.body.data.updated_at as string) >= (created.body.data.updated_at as string)).toBe(true);

    const noName = await world.client.json<Failure>(`/v4/contacts/${id}`, { method: 'POST', json: { name: '' } });
    expect(noName.status).toBe(422);
    expect(noName.body.error.fields?.name).toEqual(['The name field is required.']);
    const nullName = await world.client.json<Failure>(`/v4/contacts/${id}`, { method: 'POST', json: { name: null } });
    expect(nullName.status).toBe(422);
  });

  it('ignores fields a contact does not have and the read-only ones, so a client may send back what it read', async () => {
    const created = await world.client.json<One>('/v4/contacts', {
      method: 'POST',
      json: {
        name: 'Sent back',
        id: 999_999,
        created_at: '2000-01-01T00:00:00Z',
        image_url: 'https://x',
        colour: 'blue',
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.data.id).not.toBe(999_999);
    expect(created.body.data).not.toHaveProperty('colour');
    expect(created.body.data.image_url).toBeNull();
    expect(created.body.data.created_at).not.toBe('2000-01-01T00:00:00Z');

    // The answer of a read, changed and sent back whole: only the writable fields count.
    const sentBack = { ...created.body.data, city: 'Oslo', emial: 'typo@example.com' };
    const updated = await world.client.json<One>(`/v4/contacts/${created.body.data.id}`, {
      method: 'POST',
      json: sentBack,
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ id: created.body.data.id, city: 'Oslo', email: null });
  });

  it('answers with an ETag and honours If-Match (412 when stale)', async () => {
    const created = await world.client.json<One>('/v4/contacts', { method: 'POST', json: { name: 'Versioned' } });
    const id = created.body.data.id;
    const read = await world.client.json<One>(`/v4/contacts/${id}`);
    const etag = read.response.headers.get('etag')!;
    expect(etag).toBe(created.response.headers.get('etag'));

    const first = await world.client.json<One>(`/v4/contacts/${id}`, {
      method: 'POST',
      json: { city: 'Rome' },
      headers: { 'if-match': etag },
    });
    expect(first.status).toBe(200);
    expect(first.response.headers.get('etag')).not.toBe(etag);
    const stale = await world.client.json<Failure>(`/v4/contacts/${id}`, {
      method: 'POST',
      json: { city: 'Oslo' },
      headers: { 'if-match': etag },
    });
    expect(stale.status).toBe(412);
    expect((await world.client.json<One>(`/v4/contacts/${id}`)).body.data.city).toBe('Rome');
  });

  it('takes an If-Match list when any of its tags is current (RFC 9110 §13.1.1), and * for any contact', async () => {
    const created = await world.client.json<One>('/v4/contacts', { method: 'POST', json: { name: 'Listed' } });
    const id = created.body.data.id;
    let etag = created.response.headers.get('etag')!;
    for (const list of [(tag: string) => `"a", ${tag}`, (tag: string) => `${tag} , "b"`, () => '*']) {
      const ifMatch = list(etag);
      const answer = await world.client.json<One>(`/v4/contacts/${id}`, {
        method: 'POST',
        json: { city: ifMatch },
        headers: { 'if-match': ifMatch },
      });
      expect(answer.status, ifMatch).toBe(200);
      etag = answer.response.headers.get('etag')!;
    }
    const none = await world.client.json<Failure>(`/v4/contacts/${id}`, {
      method: 'POST',
      json: { city: 'Nope' },
      headers: { 'if-match': '"a", "b"' },
    });
    expect(none.status).toBe(412);
  });
});

describe('GET /v4/contacts', () => {
  it('walks every contact exactly once through cursors, even with inserts between pages', async () => {
    const walker = await aClient(world.stack);
    for (let i = 0; i < 25; i++) await aContact(world.stack.db, walker.member, { name: `Walk ${i}` });
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: { body: Many } = await walker.json<Many>(`/v4/contacts?limit=7${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.body.meta.limit).toBe(7);
      seen.push(...page.body.data.map((contact) => contact.id));
      cursor = page.body.meta.next_cursor;
      if (pages++ === 1) await aContact(world.stack.db, walker.member, { name: 'Inserted meanwhile' });
    } while (cursor);
    expect(seen).toHaveLength(26);
    expect(new Set(seen).size).toBe(26);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
  });

  it('marks every answer nosniff: a page, an error, the vCard export, no token at all', async () => {
    const answers = [
      await world.client.request('/v4/contacts'),
      await world.client.request('/v4/contacts?limit=0'),
      await world.client.request('/v4/contacts/export'),
      await fetch(`${world.stack.apiUrl}/v4/contacts`),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 422, 200, 401]);
    for (const answer of answers) expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('carries the query in the cursor: sent alone it pages the same listing; with another filter it is refused', async () => {
    const pager = await aClient(world.stack);
    const group = await aGroup(world.stack.db, [pager.member]);
    for (let i = 0; i < 5; i++) {
      await aContact(world.stack.db, pager.member, { name: `Seed ${i}`, group_id: group.id });
      await aContact(world.stack.db, pager.member, { name: `Other ${i}` });
    }
    const since = '2000-01-01T00:00:00.000Z';
    const first = await pager.json<Many>(`/v4/contacts?limit=2&q=seed&group_id=${group.id}&updated_since=${since}`);
    const names = [...first.body.data.map((contact) => contact.name)];
    let cursor = first.body.meta.next_cursor;
    while (cursor) {
      const page = await pager.json<Many>(`/v4/contacts?cursor=${cursor}`);
      expect(page.body.meta.limit).toBe(2);
      names.push(...page.body.data.map((contact) => contact.name));
      cursor = page.body.meta.next_cursor;
    }
    expect(names).toEqual(['Seed 0', 'Seed 1', 'Seed 2', 'Seed 3', 'Seed 4']);

    const cursorOfFirst = first.body.meta.next_cursor as string;
    // The same filters beside it, and another page size, are fine.
    const same = await pager.json<Many>(`/v4/contacts?cursor=${cursorOfFirst}&q=seed&limit=3`);
    expect(same.body.data.map((contact) => contact.name)).toEqual(['Seed 2', 'Seed 3', 'Seed 4']);
    const other = await pager.json<Failure>(`/v4/contacts?cursor=${cursorOfFirst}&q=other`);
    expect(other.status).toBe(422);
    expect(other.body.error.fields?.cursor?.[0]).toContain('another q');
    const unfiltered = (await pager.json<Many>('/v4/contacts?limit=2')).body.meta.next_cursor as string;
    expect((await pager.json<Failure>(`/v4/contacts?cursor=${unfiltered}&group_id=${group.id}`)).status).toBe(422);
    // An empty search is no search, beside a cursor too.
    expect((await pager.json<Many>(`/v4/contacts?cursor=${unfiltered}&q=`)).status).toBe(200);
    // A cursor with a key of no cursor's is no cursor.
    const padded = Buffer.from(JSON.stringify({ k: 'l', a: 1, l: 10, al: 'x' })).toString('base64url');
    expect((await pager.json<Failure>(`/v4/contacts?cursor=${padded}`)).status).toBe(422);
    // A cursor of an earlier release (the id alone) still pages, with the filters sent beside it.
    const older = Buffer.from(JSON.stringify({ a: first.body.data[1]!.id })).toString('base64url');
    const olderPage = await pager.json<Many>(`/v4/contacts?cursor=${older}&q=seed&limit=10`);
    expect(olderPage.body.data.map((contact) => contact.name)).toEqual(['Seed 2', 'Seed 3', 'Seed 4']);
  });

  it("lists only the caller's contacts, and filters by q, group_id and updated_since", async () => {
    const searcher = await aClient(world.stack);
    const group = await aGroup(world.stack.db, [searcher.member]);
    await aContact(world.stack.db, searcher.member, { name: 'Alice Martin', company_name: 'ACME' });
    await aContact(world.stack.db, searcher.member, { name: 'Bob', email: 'bob@martin.example', group_id: group.id });
    await aContact(world.stack.db, searcher.member, { name: '100% Carol' });
    await aContact(world.stack.db, world.client.member, { name: 'Martin of Ada' });

    const names = async (query: string) =>
      (await searcher.json<Many>(`/v4/contacts${query}`)).body.data.map((contact) => contact.name);
    expect(await names('')).toEqual(['Alice Martin', 'Bob', '100% Carol']);
    expect(await names('?q=MARTIN')).toEqual(['Alice Martin', 'Bob']);
    expect(await names('?q=acme')).toEqual(['Alice Martin']);
    expect(await names('?q=%25')).toEqual(['100% Carol']);
    expect(await names(`?group_id=${group.id}`)).toEqual(['Bob']);
    expect(await names(`?updated_since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual(
      [],
    );
    expect(await names('?updated_since=2000-01-01T00:00:00Z')).toHaveLength(3);
  });

  it.each([
    'limit=0',
    'limit=1001',
    'limit=abc',
    'cursor=nonsense',
    // A well-formed cursor past the largest id PostgreSQL's integer holds (it failed the query: 500).
    `cursor=${Buffer.from('{"a":2147483648}').toString('base64url')}`,
    'updated_since=yesterday',
    'group_id=x',
    // Past the largest id PostgreSQL's integer holds (it failed the query: 500), and no id at all.
    'group_id=2147483648',
    'group_id=9999999999',
    'group_id=0',
    'limit=1&limit=2',
    'q=%00',
    // A cursor's filters are held to the query string's rules (a NUL or a date PostgreSQL cannot
    // hold failed the query: 500).
    ...[
      { k: 'l', a: 0, l: 2, q: '\u0000' },
      { k: 'l', a: 0, l: 2, u: '-010000-01-01T00:00:00Z' },
      { k: 'l', a: 0, l: 2, u: '+275760-09-13T00:00:00.000Z' },
      { k: 'l', a: 0, l: 2, u: '2026-02-30T00:00:00Z' },
      { k: 'l', a: 0, l: 2, g: 0 },
    ].map((cursor) => `cursor=${Buffer.from(JSON.stringify(cursor)).toString('base64url')}`),
  ])('refuses ?%s with 422', async (query) => {
    const { status, body } = await world.client.json<Failure>(`/v4/contacts?${query}`);
    expect(status).toBe(422);
    expect(body.error.code).toBe('validation_failed');
  });
});

describe('DELETE /v4/contacts', () => {
  it("deletes only the caller's own contacts among the ids, and counts only those", async () => {
    const deleter = await aClient(world.stack);
    const other = await aMember(world.stack.db);
    const mine = [await aContact(world.stack.db, deleter.member), await aContact(world.stack.db, deleter.member)];
    const keep = await aContact(world.stack.db, deleter.member);
    const theirs = await aContact(world.stack.db, other);
    const { status, body } = await deleter.json('/v4/contacts', {
      method: 'DELETE',
      json: { contact_ids: [...mine, theirs, 2_000_000_000] },
    });
    expect(status).toBe(200);
    expect(body).toEqual({ data: { deleted_ids: mine }, deleted_count: 2 });
    expect(await world.stack.db('contacts').whereIn('id', [keep, theirs]).pluck('id')).toHaveLength(2);
  });

  it("deletes the caller's contacts in a group they belong to, and refuses a group they do not (403)", async () => {
    const deleter = await aClient(world.stack);
    const friend = await aMember(world.stack.db);
    const group = await aGroup(world.stack.db, [deleter.member, friend]);
    const inGroup = await aContact(world.stack.db, deleter.member, { group_id: group.id });
    const friendsGuest = await aContact(world.stack.db, friend, { group_id: group.id });
    const outside = await aContact(world.stack.db, deleter.member);
    const { body } = await deleter.json('/v4/contacts', { method: 'DELETE', json: { group_id: group.id } });
    expect(body).toEqual({ data: { deleted_ids: [inGroup] }, deleted_count: 1 });
    expect(await world.stack.db('contacts').whereIn('id', [friendsGuest, outside]).pluck('id')).toHaveLength(2);

    const foreign = await aGroup(world.stack.db, [friend]);
    expect((await deleter.json('/v4/contacts', { method: 'DELETE', json: { group_id: foreign.id } })).status).toBe(403);
  });

  it.each([
    [{}],
    [{ contact_ids: [] }],
    [{ contact_ids: ['1'] }],
    [{ contact_ids: [1.5] }],
    [{ contact_ids: 'all' }],
    [{ contact_ids: [2_147_483_648] }],
    [{ group_id: 2_147_483_648 }],
    [{ group_id: 0 }],
    [{ contact_ids: Array.from({ length: 1001 }, (_, i) => i + 1) }],
  ])('refuses the body %j with 422', async (json) => {
    expect((await world.client.json('/v4/contacts', { method: 'DELETE', json })).status).toBe(422);
  });

  it('refuses an empty body with 422', async () => {
    expect((await world.client.json('/v4/contacts', { method: 'DELETE' })).status).toBe(422);
  });

  it('deletes nothing under an If-Match naming an entity tag (the collection has none, RFC 9110 §13.1.1); * passes', async () => {
    const deleter = await aClient(world.stack);
    const id = await aContact(world.stack.db, deleter.member);
    const etag = (await deleter.request(`/v4/contacts/${id}`)).headers.get('etag')!;
    const json = { contact_ids: [id] };
    const stale = await deleter.json<{ error: { code: string } }>('/v4/contacts', {
      method: 'DELETE',
      json,
      headers: { 'if-match': etag },
    });
    expect(stale.status).toBe(412);
    expect(stale.body.error.code).toBe('precondition_failed');
    expect(await world.stack.db('contacts').where({ id }).pluck('id')).toEqual([id]);
    const any = await deleter.json('/v4/contacts', { method: 'DELETE', json, headers: { 'if-match': '*' } });
    expect(any.body).toEqual({ data: { deleted_ids: [id] }, deleted_count: 1 });
  });
});

describe('groups, guests and business categories', () => {
  it("lists the caller's groups, and a group's guests for its members only", async () => {
    const member = await aClient(world.stack);
    const friend = await aClient(world.stack);
    const outsider = await aClient(world.stack);
    const group = await aGroup(world.stack.db, [member.member, friend.member]);
    const guest = await aContact(world.stack.db, friend.member, { group_id: group.id, name: 'Guest' });

    expect((await member.json<{ data: unknown[] }>('/v4/groups')).body.data).toEqual([
      { id: group.id, name: group.name },
    ]);
    const guests = await member.json<Many>(`/v4/groups/${group.id}/guests`);
    expect(guests.body.data.map((contact) => contact.id)).toEqual([guest]);
    expect((await outsider.json(`/v4/groups/${group.id}/guests`)).status).toBe(403);
    expect((await outsider.json('/v4/groups/2000000000/guests')).status).toBe(404);
  });

  it("lists every one of a large group's guests, read and sent a page at a time (1,001: pages of 500)", async () => {
    const member = await aClient(world.stack);
    const friend = await aClient(world.stack);
    const group = await aGroup(world.stack.db, [member.member, friend.member]);
    const guests = await manyContacts(world.stack.db, friend.member, 1001, { groupId: group.id });
    const { status, body, response } = await member.json<Many>(`/v4/groups/${group.id}/guests`);
    expect(status).toBe(200);
    // Other members' contacts: private to the caller's own cache, and revalidated.
    expect(response.headers.get('cache-control')).toBe('private, no-cache');
    expect(body.data.map((contact) => contact.id)).toEqual(guests);
    expect(body.data[1000]?.image_url).toBeNull();
  });

  it('lists business categories', async () => {
    const category = await aCategory(world.stack.db);
    const { body } = await world.client.json<{ data: unknown[] }>('/v4/business-categories');
    expect(body.data).toContainEqual({ id: category.id, name: category.name });
  });
});
