import { MAX_CARD_PROPERTIES, MAX_IMPORT_CARDS } from '@contacts/schemas';
import ICAL from 'ical.js';
import { describe, expect, it } from 'vitest';
import { MAX_CONCURRENT_IMPORTS } from '../src/routes/v4/vcard';
import { aCategory, aClient, aGroup, type Client, PNG } from './support/factories';
import { useStack } from './support/use-stack';

interface Contact {
  id: number;
  [key: string]: unknown;
}
type Imported = {
  data: {
    created: number;
    contacts: Array<{ index: number; id: number }>;
    skipped: Array<{ index: number; reason: string }>;
  };
};
type Failure = { error: { code: string; fields?: Record<string, string[]> } };

const world = useStack({ client: false });

const list = async (client: Client) => (await client.json<{ data: Contact[] }>('/v4/contacts?limit=1000')).body.data;
const importText = (client: Client, text: string, type = 'text/vcard') =>
  client.json<Imported & Failure>('/v4/contacts/import', {
    method: 'POST',
    headers: { 'content-type': type },
    body: text,
  });

/** What vCard carries of a contact: everything but the ids, the times, the group and the image. */
const carried = ({ id, created_at, updated_at, group_id, image_url, ...rest }: Contact) => rest;

describe('vCard export and import', () => {
  it('exports every field as vCard 4.0 and an import into another member reproduces them', async () => {
    const ada = await aClient(world.stack);
    const category = await aCategory(world.stack.db);
    const group = await aGroup(world.stack.db, [ada.member]);
    const full = {
      name: 'Ada, Countess; of Lovelace',
      email: 'ada@example.test',
      company_name: 'Engines; Ltd, Inc',
      personal_number: '+44 20 1234',
      work_number: '+44 20 9876',
      website: 'https://ada.example.test/',
      address: `Line one\nLine two ${'very long '.repeat(12)}`,
      city: 'Zürich',
      state: 'ZH',
      zipcode: '8000',
      country: '日本',
      business_category_id: category.id,
      group_id: group.id,
      join_date: '2024-02-29',
    };
    const created = await ada.json<{ data: Contact }>('/v4/contacts', { method: 'POST', json: full });
    expect(created.status).toBe(201);
    // The image on its own (a form would turn the address's newline into CRLF).
    const form = new FormData();
    form.set('image', new Blob([new Uint8Array(PNG)], { type: 'image/png' }), 'a.png');
    const withImage = await ada.request(`/v4/contacts/${created.body.data.id}`, { method: 'POST', body: form });
    expect(withImage.status).toBe(200);
    await ada.json('/v4/contacts', { method: 'POST', json: { name: 'Solo' } });

    const response = await ada.request('/v4/contacts/export');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/vcard; charset=utf-8');
    const text = await response.text();
    for (const line of text.split('\r\n')) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);
    const parsed = ICAL.parse(text) as unknown[];
    const cards = (Array.isArray(parsed[0]) ? parsed : [parsed]).map((jcard) => new ICAL.Component(jcard as unknown[]));
    expect(cards.map((card) => card.getFirstPropertyValue('fn'))).toEqual(['Ada, Countess; of Lovelace', 'Solo']);
    expect(cards[0]!.getFirstPropertyValue('photo')).toMatch(/\/v4\/contacts\/\d+\/image$/);

    const grace = await aClient(world.stack);
    const imported = await importText(grace, text);
    expect(imported.status).toBe(200);
    expect(imported.body).toEqual({
      data: {
        created: 2,
        contacts: [
          { index: 0, id: expect.any(Number) },
          { index: 1, id: expect.any(Number) },
        ],
        skipped: [],
      },
    });
    expect((await list(grace)).map(carried)).toEqual((await list(ada)).map(carried));
    // Each card's id is the contact made from it.
    for (const { index, id } of imported.body.data.contacts) {
      const made = await grace.json<{ data: Contact }>(`/v4/contacts/${id}`);
      expect(made.body.data.name).toBe(cards[index]!.getFirstPropertyValue('fn'));
    }
  });

  it('streams a book larger than one export page', async () => {
    const client = await aClient(world.stack);
    await world.stack
      .db('contacts')
      .insert(Array.from({ length: 1_203 }, (_, index) => ({ owner_id: client.member.id, name: `Bulk ${index}` })));
    const text = await (await client.request('/v4/contacts/export')).text();
    expect(text.match(/^BEGIN:VCARD\r$/gm)).toHaveLength(1_203);
    expect(text.match(/^END:VCARD\r$/gm)).toHaveLength(1_203);
    expect(text).toContain('FN:Bulk 1202\r\n');
  });

  it('imports vCard 3.0 from a multipart file, skipping the cards it cannot take, with reasons', async () => {
    const client = await aClient(world.stack);
    await client.json('/v4/contacts', { method: 'POST', json: { name: 'Taken', email: 'taken@example.test' } });
    const text = [
      'BEGIN:VCARD',
      'VERSION:3.0',
      'N:Hopper;Grace;;;',
      'EMAIL;TYPE=INTERNET:grace@example.test',
      'TEL;TYPE=HOME:111',
      'TEL;TYPE=WORK:222',
      'X-UNKNOWN:ignored',
      'END:VCARD',
      'BEGIN:VCARD',
      'VERSION:3.0',
      'FN:Bad mail',
      'EMAIL:not-an-email',
      'END:VCARD',
      'BEGIN:VCARD',
      'VERSION:4.0',
      'FN:Duplicate',
      'EMAIL:TAKEN@example.test',
      'END:VCARD',
    ].join('\r\n');
    const form = new FormData();
    form.set('file', new Blob([text], { type: 'text/vcard' }), 'contacts.vcf');
    const { status, body } = await client.json<Imported>('/v4/contacts/import', { method: 'POST', body: form });
    expect(status).toBe(200);
    expect(body.data.created).toBe(1);
    expect(body.data.contacts).toEqual([{ index: 0, id: expect.any(Number) }]);
    expect(body.data.skipped.map((skip) => skip.index)).toEqual([1, 2]);
    expect(body.data.skipped[0]!.reason).toMatch(/^email: /);
    expect(body.data.skipped[1]!.reason).toBe('The email has already been taken.');
    const grace = (await list(client)).find((contact) => contact.name === 'Grace Hopper');
    expect(grace?.id).toBe(body.data.contacts[0]?.id);
    expect(grace).toMatchObject({ email: 'grace@example.test', personal_number: '111', work_number: '222' });
  });

  it('skips a card whose join date PostgreSQL cannot store, with its reason, and imports the others', async () => {
    const client = await aClient(world.stack);
    const card = (name: string, joined: string) =>
      ['BEGIN:VCARD', 'VERSION:4.0', `FN:${name}`, `X-CONTACTS-JOIN-DATE:${joined}`, 'END:VCARD'].join('\r\n');
    const { status, body } = await importText(
      client,
      [card('Year zero', '0000-01-01'), card('Fine', '2001-02-03')].join('\r\n'),
    );
    expect(status).toBe(200);
    expect(body.data).toEqual({
      created: 1,
      contacts: [{ index: 1, id: expect.any(Number) }],
      skipped: [
        {
          index: 0,
          reason: 'join_date: The join date must be a real date from 0001-01-01 to 9999-12-31, as YYYY-MM-DD.',
        },
      ],
    });
    expect((await list(client)).map((contact) => [contact.name, contact.join_date])).toEqual([['Fine', '2001-02-03']]);
  });

  it('refuses a body whose only card never ends (no complete BEGIN…END) with 422, as one without any', async () => {
    const client = await aClient(world.stack);
    const unterminated = await importText(client, 'BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Cut short\r\n');
    expect(unterminated.status).toBe(422);
    expect(Object.keys(unterminated.body.error.fields ?? {})).toEqual(['file']);
    // With a complete card beside it, the unterminated one is skipped with its reason.
    const mixed = await importText(
      client,
      'BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Whole\r\nEND:VCARD\r\nBEGIN:VCARD\r\nVERSION:4.0\r\nFN:Cut\r\n',
    );
    expect(mixed.status).toBe(200);
    expect(mixed.body.data).toEqual({
      created: 1,
      contacts: [{ index: 0, id: expect.any(Number) }],
      skipped: [{ index: 1, reason: 'The card has no END:VCARD.' }],
    });
  });

  it('refuses a body without a vCard (422), one too large (413), another type (415), and writes nothing', async () => {
    const client = await aClient(world.stack);
    const none = await importText(client, 'just text');
    expect(none.status).toBe(422);
    expect(Object.keys(none.body.error.fields ?? {})).toEqual(['file']);
    const huge = await importText(
      client,
      `BEGIN:VCARD\r\nVERSION:4.0\r\nFN:${'x'.repeat(5 * 1024 * 1024)}\r\nEND:VCARD`,
    );
    expect(huge.status).toBe(413);
    expect(huge.body.error.code).toBe('payload_too_large');
    const json = await client.json<Failure>('/v4/contacts/import', { method: 'POST', json: { name: 'x' } });
    expect(json.status).toBe(415);
    expect(await list(client)).toEqual([]);
  });

  it('refuses an import of more cards than one transaction takes (422), writing nothing', async () => {
    const client = await aClient(world.stack);
    const card = 'BEGIN:VCARD\r\nVERSION:4.0\r\nFN:A\r\nEND:VCARD\r\n';
    const refused = await importText(client, card.repeat(MAX_IMPORT_CARDS + 1));
    expect(refused.status).toBe(422);
    expect(refused.body.error.fields?.file?.[0]).toContain(`at most ${MAX_IMPORT_CARDS} cards`);
    expect(await list(client)).toEqual([]);
  });

  it('skips a card of more properties than a card may have, keeping none of them, and imports the others', async () => {
    const client = await aClient(world.stack);
    const unknown = Array.from({ length: 50_000 }, (_, n) => `X-UNKNOWN-${n}:${n}`).join('\r\n');
    const text =
      `BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Overfull\r\n${unknown}\r\nEND:VCARD\r\n` +
      'BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Kept\r\nEND:VCARD\r\n';
    const imported = await importText(client, text);
    expect(imported.status).toBe(200);
    expect(imported.body.data.created).toBe(1);
    expect(imported.body.data.skipped).toEqual([
      { index: 0, reason: `The card has more than ${MAX_CARD_PROPERTIES} properties.` },
    ]);
    expect((await list(client)).map((contact) => contact.name)).toEqual(['Kept']);
  });

  it(`runs at most ${MAX_CONCURRENT_IMPORTS} imports at once in a process; one more is 503 with Retry-After, nothing written`, async () => {
    const client = await aClient(world.stack);
    const card = 'BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Many\r\nEND:VCARD\r\n';
    const answers = await Promise.all(
      Array.from({ length: MAX_CONCURRENT_IMPORTS + 4 }, () => importText(client, card.repeat(2_000))),
    );
    const busy = answers.filter((answer) => answer.status === 503);
    const done = answers.filter((answer) => answer.status === 200);
    expect(busy.length).toBeGreaterThan(0);
    expect(done.length).toBeGreaterThanOrEqual(1);
    expect(busy.length + done.length).toBe(answers.length);
    for (const answer of busy) {
      expect(answer.body.error.code).toBe('service_unavailable');
      expect(answer.response.headers.get('retry-after')).toBe('5');
    }
    expect((await list(client)).length).toBe(Math.min(1000, done.length * 2_000));
  });

  it('matches CATEGORIES to the category of exactly that name first, then case-insensitively to the lowest id', async () => {
    const client = await aClient(world.stack);
    const other = await aClient(world.stack);
    const suffix = `${process.pid}-${Date.now()}`;
    const insert = async (name: string) =>
      (await world.stack.db('business_categories').insert({ name }).returning<Array<{ id: number }>>('id'))[0]!.id;
    const lower = await insert(`Plumbing ${suffix}`);
    const upper = await insert(`PLUMBING ${suffix}`);
    for (const [name, category] of [
      [`Plumbing ${suffix}`, lower],
      [`PLUMBING ${suffix}`, upper],
    ] as const) {
      await client.json('/v4/contacts', {
        method: 'POST',
        json: { name: `In ${name}`, business_category_id: category },
      });
    }
    const exported = await (await client.request('/v4/contacts/export')).text();
    expect((await importText(other, exported)).body.data).toMatchObject({ created: 2, skipped: [] });
    const card = (name: string, category: string) =>
      ['BEGIN:VCARD', 'VERSION:4.0', `FN:${name}`, `CATEGORIES:${category}`, 'END:VCARD'].join('\r\n');
    const imported = await importText(other, [card('Mixed case', `pLuMbInG ${suffix}`)].join('\r\n'));
    expect(imported.body.data).toMatchObject({ created: 1, skipped: [] });
    expect(
      (await list(other)).map((contact) => [
        contact.name,
        contact.business_category_id,
        contact.business_category_name,
      ]),
    ).toEqual([
      [`In Plumbing ${suffix}`, lower, `Plumbing ${suffix}`],
      [`In PLUMBING ${suffix}`, upper, `PLUMBING ${suffix}`],
      ['Mixed case', lower, `Plumbing ${suffix}`],
    ]);
  });

  it('takes from a CATEGORIES list the first name that is a business category, ignoring the unknown ones', async () => {
    const client = await aClient(world.stack);
    const services = await aCategory(world.stack.db);
    const other = await aCategory(world.stack.db);
    // A name holding a comma, which a CATEGORIES list escapes (RFC 6350 §3.4).
    const [withComma] = await world.stack
      .db('business_categories')
      .insert({ name: `Repairs, general ${process.pid}-${Date.now()}` })
      .returning<Array<{ id: number; name: string }>>(['id', 'name']);
    const card = (name: string, ...lines: string[]) =>
      ['BEGIN:VCARD', 'VERSION:4.0', `FN:${name}`, ...lines, 'END:VCARD'].join('\r\n');
    const text = [
      card('Unknown first', `CATEGORIES:Unknown,${services.name}`),
      card('Known first', `CATEGORIES:${services.name},Unknown`),
      card('Two known', `CATEGORIES:Unknown,${other.name},${services.name}`),
      card('Escaped comma', `CATEGORIES:Repairs,${withComma!.name.replace(',', '\\,')}`),
      card('None known', 'CATEGORIES:Unknown,Also unknown'),
      card('Second line', 'CATEGORIES:Unknown', `CATEGORIES:${other.name}`),
    ].join('\r\n');
    const { status, body } = await importText(client, text);
    expect(status).toBe(200);
    expect(body.data).toMatchObject({ created: 6, skipped: [] });
    expect((await list(client)).map((contact) => [contact.name, contact.business_category_id])).toEqual([
      ['Unknown first', services.id],
      ['Known first', services.id],
      ['Two known', other.id],
      ['Escaped comma', withComma!.id],
      ['None known', null],
      ['Second line', other.id],
    ]);
  });

  it('rejoins a fold that splits a UTF-8 character into its octets (RFC 6350 §3.2), as a body and as a file', async () => {
    const client = await aClient(world.stack);
    // "é" is C3 A9: folded between its two bytes, each physical line alone is not UTF-8.
    const card = (name: string, fold: string) =>
      Buffer.concat([
        Buffer.from(`BEGIN:VCARD\r\nVERSION:4.0\r\nFN:${name} \xC3`, 'latin1'),
        Buffer.from(`${fold}\xA9x\r\nEND:VCARD\r\n`, 'latin1'),
      ]);
    const body = await client.json<Imported & Failure>('/v4/contacts/import', {
      method: 'POST',
      headers: { 'content-type': 'text/vcard' },
      body: Buffer.concat([card('Fold', '\r\n '), card('Bare LF tab', '\n\t')]),
    });
    expect(body.status).toBe(200);
    expect(body.body.data).toMatchObject({ created: 2, skipped: [] });
    const form = new FormData();
    form.set('file', new Blob([card('Filed', '\r\n ')], { type: 'text/vcard' }), 'contacts.vcf');
    const file = await client.json<Imported>('/v4/contacts/import', { method: 'POST', body: form });
    expect(file.status).toBe(200);
    expect((await list(client)).map((contact) => contact.name)).toEqual(['Fold éx', 'Bare LF tab éx', 'Filed éx']);

    // Bytes that are still not UTF-8 once unfolded are refused, and nothing is written.
    const broken = await client.json<Failure & { error: { message: string } }>('/v4/contacts/import', {
      method: 'POST',
      headers: { 'content-type': 'text/vcard' },
      body: Buffer.from('BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Broken \xC3\r\n x\r\nEND:VCARD\r\n', 'latin1'),
    });
    expect(broken.status).toBe(400);
    expect(broken.body.error.message).toBe('The body is not valid UTF-8.');
    expect(await list(client)).toHaveLength(3);
  });

  it('never takes a fax or pager number as the personal or work number', async () => {
    const client = await aClient(world.stack);
    const text = [
      'BEGIN:VCARD',
      'VERSION:3.0',
      'FN:Faxed',
      'TEL;TYPE=FAX:111',
      'TEL;TYPE=HOME,FAX:112',
      'TEL;TYPE=WORK;TYPE=FAX:113',
      'TEL;PAGER:114',
      'TEL;TYPE=CELL:222',
      'TEL;TYPE=WORK,VOICE:333',
      'END:VCARD',
      'BEGIN:VCARD',
      'VERSION:4.0',
      'FN:Paged',
      'TEL;TYPE=pager;VALUE=uri:tel:444',
      'TEL;VALUE=uri;TYPE="home,fax":tel:445',
      'TEL;TYPE=home:555',
      'END:VCARD',
      'BEGIN:VCARD',
      'VERSION:4.0',
      'FN:Only',
      'item1.TEL;TYPE=fax:666',
      'END:VCARD',
    ].join('\r\n');
    const { status, body } = await importText(client, text);
    expect(status).toBe(200);
    expect(body.data).toMatchObject({ created: 3, skipped: [] });
    expect((await list(client)).map((contact) => [contact.name, contact.personal_number, contact.work_number])).toEqual(
      [
        ['Faxed', '222', '333'],
        ['Paged', '555', null],
        ['Only', null, null],
      ],
    );
  });
});
