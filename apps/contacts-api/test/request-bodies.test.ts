import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aClient, aContact, type Client, multipart, PNG } from './support/factories';
import { type Stack, startStack } from './support/servers';

/**
 * How every route that reads a body reads it: Content-Encoding undone (or refused), strict UTF-8,
 * limits answered with 413 — never a 500, never a silently altered or half-written contact.
 */
type Failure = { error: { code: string; message: string; fields?: Record<string, string[]> } };
type Laravel = { message: string; errors?: Record<string, string[]> };

let stack: Stack;
let ada: Client;
let existing: number;
beforeAll(async () => {
  stack = await startStack();
  ada = await aClient(stack);
  existing = await aContact(stack.db, ada.member, { name: 'Existing' });
});
afterAll(async () => stack?.close());

const JSON_TYPE = 'application/json';
const FORM_TYPE = 'application/x-www-form-urlencoded';

/** Every route that reads a JSON or form body, with a body it would accept (DELETE /v4/contacts reads JSON alone). */
const bodyRoutes = (): Array<{ method: string; path: string; json: object; form?: string }> => [
  { method: 'POST', path: '/v4/contacts', json: { name: 'Sent' }, form: 'name=Sent' },
  { method: 'POST', path: `/v4/contacts/${existing}`, json: { city: 'Sent' }, form: 'city=Sent' },
  { method: 'DELETE', path: '/v4/contacts', json: { contact_ids: [2_000_000_000] } },
  {
    method: 'POST',
    path: '/v4/contacts/batch',
    json: { operations: [{ op: 'create', contact: { name: 'Sent' } }] },
    form: 'operations[0][op]=create&operations[0][contact][name]=Sent',
  },
  { method: 'POST', path: '/v3/contacts', json: { name: 'Sent' }, form: 'name=Sent' },
  { method: 'PATCH', path: `/v3/contacts/${existing}`, json: { city: 'Sent' }, form: 'city=Sent' },
];

const send = (method: string, path: string, headers: Record<string, string>, body: Buffer | string | FormData) =>
  ada.request(path, {
    method,
    headers,
    body: typeof body === 'string' || body instanceof FormData ? body : new Uint8Array(body),
  });

/** The error's message, in either version's shape. */
async function messageOf(response: Response): Promise<string> {
  const body = (await response.json()) as Failure & Laravel;
  return body.error?.message ?? body.message;
}

const contactRows = () => stack.db('contacts').where({ owner_id: ada.member.id }).orderBy('id');

describe('Content-Encoding', () => {
  it('refuses a body that is not encoded as its Content-Encoding says with 400, on every route, and writes nothing', async () => {
    const before = await contactRows();
    for (const route of bodyRoutes()) {
      for (const [type, body] of [
        [JSON_TYPE, JSON.stringify(route.json)],
        ...(route.form === undefined ? [] : [[FORM_TYPE, route.form] as const]),
      ] as const) {
        for (const encoding of ['gzip', 'deflate', 'br']) {
          const response = await send(
            route.method,
            route.path,
            { 'content-type': type, 'content-encoding': encoding },
            body,
          );
          const what = `${route.method} ${route.path} ${type} ${encoding}`;
          expect(response.status, what).toBe(400);
          expect(await messageOf(response), what).toBe('The body does not match its Content-Encoding.');
        }
      }
    }
    const import_ = await send(
      'POST',
      '/v4/contacts/import',
      { 'content-type': 'text/vcard', 'content-encoding': 'gzip' },
      'BEGIN:VCARD',
    );
    expect(import_.status).toBe(400);
    const cut = gzipSync(JSON.stringify({ name: 'Cut short' })).subarray(0, 12);
    const truncated = await send(
      'POST',
      '/v4/contacts',
      { 'content-type': JSON_TYPE, 'content-encoding': 'gzip' },
      cut,
    );
    expect(truncated.status).toBe(400);
    const form = multipart({ name: 'Multipart' });
    const multipartAnswer = await ada.request('/v4/contacts', {
      method: 'POST',
      headers: { 'content-encoding': 'br' },
      body: form,
    });
    expect(multipartAnswer.status).toBe(400);
    expect(await contactRows()).toEqual(before);
  });

  it('reads gzip, deflate and br bodies: JSON, forms, multipart and vCard imports', async () => {
    const reader = await aClient(stack);
    const json = (name: string) => Buffer.from(JSON.stringify({ name }));
    const answers = [
      await reader.request('/v4/contacts', {
        method: 'POST',
        headers: { 'content-type': JSON_TYPE, 'content-encoding': 'gzip' },
        body: new Uint8Array(gzipSync(json('Gzip JSON'))),
      }),
      await reader.request('/v4/contacts', {
        method: 'POST',
        headers: { 'content-type': FORM_TYPE, 'content-encoding': 'deflate' },
        body: new Uint8Array(deflateSync('name=Deflate+form')),
      }),
      await reader.request('/v3/contacts', {
        method: 'POST',
        headers: { 'content-type': JSON_TYPE, 'content-encoding': 'BR' },
        body: new Uint8Array(brotliCompressSync(json('Brotli v3'))),
      }),
    ];
    // The multipart body as fetch would send it, then compressed.
    const multipartBody = new Response(multipart({ name: 'Gzip multipart' }));
    answers.push(
      await reader.request('/v4/contacts', {
        method: 'POST',
        headers: { 'content-type': multipartBody.headers.get('content-type')!, 'content-encoding': 'gzip' },
        body: new Uint8Array(gzipSync(Buffer.from(await multipartBody.arrayBuffer()))),
      }),
    );
    for (const answer of answers) expect(answer.status).toBeLessThan(300);
    const imported = await reader.request('/v4/contacts/import', {
      method: 'POST',
      headers: { 'content-type': 'text/vcard', 'content-encoding': 'gzip' },
      body: new Uint8Array(gzipSync('BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Gzip vCard\r\nEND:VCARD\r\n')),
    });
    expect(await imported.json()).toMatchObject({ data: { created: 1, skipped: [] } });
    expect(await stack.db('contacts').where({ owner_id: reader.member.id }).orderBy('id').pluck('name')).toEqual([
      'Gzip JSON',
      'Deflate form',
      'Brotli v3',
      'Gzip multipart',
      'Gzip vCard',
    ]);
  });

  it('refuses a Content-Encoding it does not read with 415, naming those it reads in Accept-Encoding', async () => {
    for (const encoding of ['compress', 'zstd', 'gzip, br', 'x-unknown']) {
      for (const [path, type] of [
        ['/v4/contacts', JSON_TYPE],
        ['/v4/contacts/import', 'text/vcard'],
      ]) {
        const response = await send('POST', path!, { 'content-type': type!, 'content-encoding': encoding }, '{}');
        expect(response.status, `${path} ${encoding}`).toBe(415);
        expect(response.headers.get('accept-encoding')).toBe('gzip, deflate, br');
        expect(((await response.json()) as Failure).error.code).toBe('unsupported_media_type');
      }
    }
  });
});

describe('UTF-8', () => {
  const josé = Buffer.from('Jos\u00e9', 'latin1'); // "Jos" and the byte 0xE9: Latin-1, not UTF-8

  it('refuses bodies that are not valid UTF-8 with 400 (they were stored with U+FFFD), and writes nothing', async () => {
    const before = await contactRows();
    const bodies: Array<[string, string, Buffer]> = [
      ['/v4/contacts', JSON_TYPE, Buffer.concat([Buffer.from('{"name":"'), josé, Buffer.from('"}')])],
      ['/v4/contacts', FORM_TYPE, Buffer.concat([Buffer.from('name='), josé])],
      ['/v3/contacts', JSON_TYPE, Buffer.concat([Buffer.from('{"name":"'), josé, Buffer.from('"}')])],
      [
        '/v4/contacts/import',
        'text/vcard',
        Buffer.concat([Buffer.from('BEGIN:VCARD\r\nVERSION:4.0\r\nFN:'), josé, Buffer.from('\r\nEND:VCARD\r\n')]),
      ],
    ];
    for (const [path, type, body] of bodies) {
      const response = await send('POST', path, { 'content-type': type }, body);
      expect(response.status, `${path} ${type}`).toBe(400);
      expect(await messageOf(response), `${path} ${type}`).toMatch(/not valid UTF-8/);
    }
    expect(await contactRows()).toEqual(before);
  });

  it('refuses percent-encoded form values that do not decode to UTF-8 with 400, keeping a bare % as it is', async () => {
    for (const form of ['name=Jos%E9', 'name=%ff%fe', 'name=ok&city=%ED%A0%80']) {
      const response = await send('POST', '/v4/contacts', { 'content-type': FORM_TYPE }, form);
      expect(response.status, form).toBe(400);
      expect(await messageOf(response)).toMatch(/UTF-8/);
    }
    const literal = await ada.json<{ data: { name: string; city: string } }>('/v4/contacts', {
      method: 'POST',
      headers: { 'content-type': FORM_TYPE },
      body: 'name=100%&city=Jos%C3%A9+%zz',
    });
    expect(literal.status).toBe(201);
    expect(literal.body.data).toMatchObject({ name: '100%', city: 'José %zz' });
  });

  it('refuses multipart text fields that are not valid UTF-8 with 400, and keeps file parts as their bytes', async () => {
    const boundary = 'XyZ';
    const part = (headers: string, body: Buffer) =>
      Buffer.concat([Buffer.from(`--${boundary}\r\n${headers}\r\n\r\n`), body, Buffer.from('\r\n')]);
    const body = (...parts: Buffer[]) => Buffer.concat([...parts, Buffer.from(`--${boundary}--\r\n`)]);
    const postParts = (...parts: Buffer[]) =>
      send('POST', '/v4/contacts', { 'content-type': `multipart/form-data; boundary=${boundary}` }, body(...parts));

    const invalid = await postParts(part('Content-Disposition: form-data; name="name"', josé));
    expect(invalid.status).toBe(400);
    expect(await messageOf(invalid)).toBe('The field name is not valid UTF-8 text.');

    const valid = await postParts(
      part('Content-Disposition: form-data; name="name"', Buffer.from('José')),
      // A part that declares its charset, as Retrofit and other clients do.
      part(
        'Content-Disposition: form-data; name="city"\r\nContent-Type: text/plain; charset=UTF-8',
        Buffer.from('Zürich'),
      ),
      part('Content-Disposition: form-data; name="image"; filename="a.png"\r\nContent-Type: image/png', PNG),
    );
    expect(valid.status).toBe(201);
    const { data } = (await valid.json()) as { data: { id: number; name: string; city: string } };
    expect(data).toMatchObject({ name: 'José', city: 'Zürich' });
    const image = await ada.request(`/v4/contacts/${data.id}/image`);
    expect(Buffer.from(await image.arrayBuffer())).toEqual(PNG);

    // A part in a charset it declares is converted as labelled; one in a charset nobody knows is refused.
    const latin1 = await postParts(
      part('Content-Disposition: form-data; name="name"\r\nContent-Type: text/plain; charset=iso-8859-1', josé),
    );
    expect(latin1.status).toBe(201);
    expect(((await latin1.json()) as { data: { name: string } }).data.name).toBe('José');
    const unknown = await postParts(
      part('Content-Disposition: form-data; name="name"\r\nContent-Type: text/plain; charset=x-bogus', josé),
    );
    expect(unknown.status).toBe(415);
    expect(await messageOf(unknown)).toBe('The field name declares a charset this API cannot read.');

    const vcard = new FormData();
    vcard.set(
      'file',
      new Blob([Buffer.concat([Buffer.from('BEGIN:VCARD\r\nVERSION:4.0\r\nFN:'), josé, Buffer.from('\r\nEND:VCARD')])]),
      'a.vcf',
    );
    const importAnswer = await ada.request('/v4/contacts/import', { method: 'POST', body: vcard });
    expect(importAnswer.status).toBe(400);
    expect(await messageOf(importAnswer)).toMatch(/not valid UTF-8/);
  });

  it('refuses a JSON string holding a lone surrogate with 422 on that field (it was stored as U+FFFD)', async () => {
    const before = await contactRows();
    const single = await send('POST', '/v4/contacts', { 'content-type': JSON_TYPE }, '{"name":"Jos\\ud800"}');
    expect(single.status).toBe(422);
    expect(((await single.json()) as Failure).error.fields).toEqual({
      name: ['The name must be valid Unicode text (it holds a lone surrogate).'],
    });
    const batch = await send(
      'POST',
      '/v4/contacts/batch',
      { 'content-type': JSON_TYPE },
      '{"operations":[{"op":"create","contact":{"name":"ok","city":"\\udc00"}}]}',
    );
    expect(batch.status).toBe(422);
    expect(Object.keys(((await batch.json()) as Failure).error.fields ?? {})).toEqual(['operations[0].contact.city']);
    const v3 = await send('POST', '/v3/contacts', { 'content-type': JSON_TYPE }, '{"name":"\\ud800"}');
    expect(v3.status).toBe(422);
    expect(Object.keys(((await v3.json()) as Laravel).errors ?? {})).toEqual(['name']);
    expect(await contactRows()).toEqual(before);
  });

  it('refuses a body type the route does not read with 415 naming the ones it does: DELETE /v4/contacts reads JSON alone', async () => {
    for (const [type, body] of [
      ['text/plain', '{"contact_ids":[1]}'],
      [FORM_TYPE, `contact_ids=${existing}`],
      [FORM_TYPE, `contact_ids[]=${existing}`],
    ] as const) {
      const response = await send('DELETE', '/v4/contacts', { 'content-type': type }, body);
      expect(response.status, `${type} ${body}`).toBe(415);
      expect(await messageOf(response), `${type} ${body}`).toBe('Send application/json.');
    }
    const multipartAnswer = await ada.request('/v4/contacts', { method: 'DELETE', body: multipart({ group_id: '1' }) });
    expect(multipartAnswer.status).toBe(415);
    await multipartAnswer.arrayBuffer();
    // A route that reads every type names them all.
    const create = await send('POST', '/v4/contacts', { 'content-type': 'text/plain' }, 'name=x');
    expect(create.status).toBe(415);
    expect(await messageOf(create)).toBe(
      'Send application/json, application/x-www-form-urlencoded or multipart/form-data.',
    );
    expect(await stack.db('contacts').where({ id: existing }).first()).toBeDefined();
  });

  it('refuses JSON and forms that declare a charset other than UTF-8 with 415', async () => {
    for (const type of [
      'application/json; charset=utf-16',
      'application/json; charset=iso-8859-1',
      `${FORM_TYPE}; charset=windows-1252`,
    ]) {
      const response = await send(
        'POST',
        '/v4/contacts',
        { 'content-type': type },
        type.startsWith('application/json') ? '{"name":"x"}' : 'name=x',
      );
      expect(response.status, type).toBe(415);
      expect(((await response.json()) as Failure).error.code).toBe('unsupported_media_type');
    }
    const declared = await send(
      'POST',
      '/v4/contacts',
      { 'content-type': 'application/json; charset=UTF-8' },
      '{"name":"Declared"}',
    );
    expect(declared.status).toBe(201);
  });
});

describe('limits and files', () => {
  it('refuses a form with more fields than it reads with 413, as multipart does (the name was dropped: 422)', async () => {
    const fields = `${Array.from({ length: 20_000 }, (_, index) => `f${index}=x`).join('&')}&name=Last`;
    const response = await send('POST', '/v4/contacts', { 'content-type': FORM_TYPE }, fields);
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: { code: 'payload_too_large', message: 'Too many fields.' } });
    const v3 = await send('POST', '/v3/contacts', { 'content-type': FORM_TYPE }, fields);
    expect(v3.status).toBe(413);
    expect(await v3.json()).toEqual({ message: 'Too many fields.' });
    const atTheLimit = `${Array.from({ length: 999 }, (_, index) => `f${index}=x`).join('&')}&name=Last`;
    expect((await send('POST', '/v4/contacts', { 'content-type': FORM_TYPE }, atTheLimit)).status).toBe(201);
  });

  it('refuses a second image with 422 under fields.image, and a file sent to the batch, which takes none', async () => {
    const two = multipart({ name: 'Two images' });
    two.append('image', new Blob([new Uint8Array(PNG)], { type: 'image/png' }), 'a.png');
    two.append('image', new Blob([new Uint8Array(PNG)], { type: 'image/png' }), 'b.png');
    const twoImages = await ada.json<Failure>('/v4/contacts', { method: 'POST', body: two });
    expect(twoImages.status).toBe(422);
    expect(twoImages.body.error.fields).toEqual({ image: ['Send one image at most.'] });

    const batch = new FormData();
    batch.set('operations', '[]');
    batch.set('file', new Blob([new Uint8Array(PNG)], { type: 'image/png' }), 'a.png');
    const withFile = await ada.json<Failure>('/v4/contacts/batch', { method: 'POST', body: batch });
    expect(withFile.status).toBe(422);
    expect(withFile.body.error.fields).toEqual({ file: ['This request takes no files.'] });
  });
});

describe('JSON', () => {
  it('tells a body that is not JSON from one with a __proto__ key (both 400, nothing written)', async () => {
    const before = await contactRows();
    const invalid = await send('POST', '/v4/contacts', { 'content-type': JSON_TYPE }, '{"name": "x"');
    expect(invalid.status).toBe(400);
    expect(await messageOf(invalid)).toBe('The body is not valid JSON.');
    const proto = await send(
      'POST',
      '/v4/contacts',
      { 'content-type': JSON_TYPE },
      '{"name": "proto", "__proto__": {"admin": true}}',
    );
    expect(proto.status).toBe(400);
    expect(await messageOf(proto)).toBe('A JSON key named __proto__ is refused.');
    expect(await contactRows()).toEqual(before);
  });
});
