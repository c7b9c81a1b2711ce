import { describe, expect, it } from 'vitest';
import { multipart, PNG } from './support/factories';
import { useStack } from './support/use-stack';

/** RFC 9110 §13: If-Match and If-None-Match on the contact, its writes, and its image. */
type One = { data: { id: number; name: string; city: string | null; updated_at: string } };
type Failure = { error: { code: string; message: string } };

const world = useStack();

async function aContactWithEtag(name = 'Conditional'): Promise<{ id: number; etag: string }> {
  const created = await world.client.json<One>('/v4/contacts', { method: 'POST', json: { name } });
  return { id: created.body.data.id, etag: created.response.headers.get('etag')! };
}

describe('GET and HEAD /v4/contacts/{id}, conditionally', () => {
  it('answers 304 with the ETag and no body when If-None-Match names the current ETag (weakly) or is *', async () => {
    const { id, etag } = await aContactWithEtag();
    for (const header of [etag, `W/${etag}`, '*', ` "a", ${etag} `, `"a",W/${etag}`]) {
      for (const method of ['GET', 'HEAD']) {
        const response = await world.client.request(`/v4/contacts/${id}`, {
          method,
          headers: { 'if-none-match': header },
        });
        expect(response.status, `${method} ${header}`).toBe(304);
        expect(response.headers.get('etag')).toBe(etag);
        expect(response.headers.get('cache-control')).toBe('private, no-cache');
        expect(await response.text()).toBe('');
      }
    }
    // fetch() sends Cache-Control: no-cache with If-None-Match: still 304.
    const revalidated = await world.client.request(`/v4/contacts/${id}`, {
      headers: { 'if-none-match': etag, 'cache-control': 'no-cache' },
    });
    expect(revalidated.status).toBe(304);
  });

  it('answers 200 with the body when If-None-Match names other tags only, or is malformed', async () => {
    const { id, etag } = await aContactWithEtag();
    for (const header of ['"a"', '"a", "b"', etag.slice(1, -1), '']) {
      const response = await world.client.json<One>(`/v4/contacts/${id}`, { headers: { 'if-none-match': header } });
      expect(response.status, header).toBe(200);
      expect(response.body.data.id).toBe(id);
      expect(response.response.headers.get('etag')).toBe(etag);
    }
    // After a change the old tag no longer matches.
    await world.client.json(`/v4/contacts/${id}`, { method: 'POST', json: { city: 'Changed' } });
    const changed = await world.client.json<One>(`/v4/contacts/${id}`, { headers: { 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.body.data.city).toBe('Changed');
  });

  it('answers 412 when If-Match names no current ETag (strong comparison), before If-None-Match', async () => {
    const { id, etag } = await aContactWithEtag();
    for (const header of ['"nope"', `W/${etag}`, '"a", "b"']) {
      const response = await world.client.json<Failure>(`/v4/contacts/${id}`, { headers: { 'if-match': header } });
      expect(response.status, header).toBe(412);
      expect(response.body.error.code).toBe('precondition_failed');
    }
    for (const header of [etag, '*', `"a", ${etag}`]) {
      expect((await world.client.request(`/v4/contacts/${id}`, { headers: { 'if-match': header } })).status).toBe(200);
    }
    const both = await world.client.request(`/v4/contacts/${id}`, {
      headers: { 'if-match': '"nope"', 'if-none-match': etag },
    });
    expect(both.status).toBe(412);
    const head = await world.client.request(`/v4/contacts/${id}`, {
      method: 'HEAD',
      headers: { 'if-match': '"nope"' },
    });
    expect(head.status).toBe(412);
    const matched = await world.client.request(`/v4/contacts/${id}`, {
      headers: { 'if-match': etag, 'if-none-match': etag },
    });
    expect(matched.status).toBe(304);
  });

  it('answers 404 for a contact the caller cannot read, whatever the conditions', async () => {
    for (const headers of [{ 'if-none-match': '*' }, { 'if-match': '"nope"' }] as Array<Record<string, string>>) {
      expect((await world.client.request('/v4/contacts/2000000000', { headers })).status).toBe(404);
    }
  });
});

describe('writes with If-None-Match', () => {
  it('refuses POST /v4/contacts/{id} with 412 when If-None-Match is * or names the current ETag, writing nothing', async () => {
    const { id, etag } = await aContactWithEtag('Unwritten');
    const before = await world.stack.db('contacts').where({ id }).first('updated_at', 'xid', 'city');
    for (const header of ['*', etag, `W/${etag}`, `"a", ${etag}`]) {
      const response = await world.client.json<Failure>(`/v4/contacts/${id}`, {
        method: 'POST',
        json: { city: 'Written' },
        headers: { 'if-none-match': header },
      });
      expect(response.status, header).toBe(412);
      expect(response.body.error).toMatchObject({
        code: 'precondition_failed',
        message: expect.stringMatching(/If-None-Match/),
      });
    }
    expect(await world.stack.db('contacts').where({ id }).first('updated_at', 'xid', 'city')).toEqual(before);
    // Another tag: the write goes ahead.
    const written = await world.client.json<One>(`/v4/contacts/${id}`, {
      method: 'POST',
      json: { city: 'Written' },
      headers: { 'if-none-match': '"other"' },
    });
    expect(written.status).toBe(200);
    expect(written.body.data.city).toBe('Written');
    // If-Match is still checked first, and a missing contact is still 404.
    const stale = await world.client.json<Failure>(`/v4/contacts/${id}`, {
      method: 'POST',
      json: { city: 'Again' },
      headers: { 'if-match': etag, 'if-none-match': '"other"' },
    });
    expect(stale.status).toBe(412);
    const missing = await world.client.request('/v4/contacts/2000000000', {
      method: 'POST',
      headers: { 'if-none-match': '*', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(missing.status).toBe(404);
  });

  it('refuses DELETE /v4/contacts with If-None-Match: * (the collection exists) with 412, deleting nothing', async () => {
    const { id } = await aContactWithEtag('Undeleted');
    const refused = await world.client.json<Failure>('/v4/contacts', {
      method: 'DELETE',
      json: { contact_ids: [id] },
      headers: { 'if-none-match': '*' },
    });
    expect(refused.status).toBe(412);
    expect(refused.body.error.code).toBe('precondition_failed');
    expect(await world.stack.db('contacts').where({ id }).first('id')).toEqual({ id });
    const deleted = await world.client.json<{ deleted_count: number }>('/v4/contacts', {
      method: 'DELETE',
      json: { contact_ids: [id] },
      headers: { 'if-none-match': '"some-tag"' },
    });
    expect(deleted.status).toBe(200);
    expect(deleted.body.deleted_count).toBe(1);
  });
});

describe('GET /v4/contacts/{id}/image, conditionally', () => {
  it('answers 304 for the current ETag compared weakly, for * and within a list', async () => {
    const created = await world.client.request('/v4/contacts', {
      method: 'POST',
      body: multipart({ name: 'Pictured' }, { bytes: PNG, filename: 'a.png', type: 'image/png' }),
    });
    const id = ((await created.json()) as One).data.id;
    const etag = (await world.client.request(`/v4/contacts/${id}/image`)).headers.get('etag')!;
    for (const header of [etag, `W/${etag}`, '*', `"a", ${etag}`, `"a",W/${etag}`]) {
      const response = await world.client.request(`/v4/contacts/${id}/image`, { headers: { 'if-none-match': header } });
      expect(response.status, header).toBe(304);
      expect(response.headers.get('etag')).toBe(etag);
    }
    for (const header of ['"a"', etag.slice(1, -1)]) {
      const response = await world.client.request(`/v4/contacts/${id}/image`, { headers: { 'if-none-match': header } });
      expect(response.status, header).toBe(200);
      expect(Buffer.from(await response.arrayBuffer()).equals(PNG)).toBe(true);
    }
  });
});

describe('the OpenAPI document', () => {
  it('documents If-None-Match and 304 on GET /v4/contacts/{id}, and If-None-Match with 412 on the writes', async () => {
    type Operation = { parameters?: Array<{ name: string; in: string }>; responses: Record<string, unknown> };
    const document = (await (await fetch(`${world.stack.apiUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, Operation>>;
    };
    const operation = (path: string, method: string) => document.paths[path]![method]!;
    const headerNames = (op: Operation) => (op.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name);
    const read = operation('/v4/contacts/{id}', 'get');
    expect(headerNames(read)).toEqual(expect.arrayContaining(['If-None-Match', 'If-Match']));
    expect(Object.keys(read.responses)).toEqual(expect.arrayContaining(['200', '304', '404', '412']));
    expect(read.responses['304']).toMatchObject({ headers: { ETag: expect.any(Object) } });
    const write = operation('/v4/contacts/{id}', 'post');
    expect(headerNames(write)).toEqual(expect.arrayContaining(['If-None-Match', 'If-Match']));
    expect(Object.keys(write.responses)).toContain('412');
    const bulkDelete = operation('/v4/contacts', 'delete');
    expect(headerNames(bulkDelete)).toContain('If-None-Match');
    expect(Object.keys(bulkDelete.responses)).toContain('412');
  });
});
