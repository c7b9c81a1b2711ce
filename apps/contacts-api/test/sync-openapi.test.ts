import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { aClient, type Client } from './support/factories';
import { type Stack, startStack } from './support/servers';

type Operation = { responses: Record<string, { content?: Record<string, { schema: unknown }> }> };

let stack: Stack;
let client: Client;
let paths: Record<string, Record<string, Operation>>;
let components: Record<string, unknown>;
beforeAll(async () => {
  stack = await startStack();
  client = await aClient(stack);
  const document = (await (await fetch(`${stack.apiUrl}/openapi.json`)).json()) as {
    paths: typeof paths;
    components: { schemas: typeof components };
  };
  ({ paths } = document);
  components = document.components.schemas;
});
afterAll(async () => stack?.close());

/** The schema the served document gives (path, method, status), as a validator. */
function validatorFor(path: string, method: string, status: number): z.ZodType {
  const schema = paths[path]?.[method]?.responses[String(status)]?.content?.['application/json']?.schema;
  if (!schema) throw new Error(`no schema for ${method} ${path} → ${status}`);
  // Component references resolved as JSON Schema $defs, so that a plain JSON Schema reader follows them.
  const relinked = JSON.parse(
    JSON.stringify({ ...(schema as object), $defs: components }).replaceAll('#/components/schemas/', '#/$defs/'),
  );
  return z.fromJSONSchema(relinked);
}

/** The answer must match the schema the served document gives the sync endpoint. */
async function expectDocumented(path: string, method: string, response: Response): Promise<void> {
  const result = validatorFor(path, method, response.status).safeParse(await response.json());
  expect(result.error?.issues ?? []).toEqual([]);
}

describe('the sync endpoints answer as the OpenAPI document says', () => {
  it('documents the four sync endpoints with their error answers', () => {
    expect(Object.keys(paths['/v4/contacts/changes']?.get?.responses ?? {}).sort()).toEqual(
      ['200', '401', '403', '410', '422', '503'].sort(),
    );
    expect(Object.keys(paths['/v4/contacts/batch']?.post?.responses ?? {})).toContain('412');
    expect(Object.keys(paths['/v4/contacts/import']?.post?.responses ?? {})).toEqual(
      expect.arrayContaining(['413', '415', '422']),
    );
    expect(Object.keys(paths['/v4/contacts/export']?.get?.responses ?? {})).toContain('200');
  });

  it("requires the etag of the feed's contacts and of a batch's, and allows it on neither a listing's nor GET's", async () => {
    type Contact = Record<string, unknown>;
    const batch = await client.json<{ data: Contact[] }>('/v4/contacts/batch', {
      method: 'POST',
      json: { operations: [{ op: 'create', contact: { name: 'Tagged' } }] },
    });
    const results = batch.body.data;
    const feed = (await client.json<{ data: Contact[] }>('/v4/contacts/changes')).body;
    const { etag, ...untagged } = feed.data[0] as Contact;
    expect(etag).toEqual(expect.any(String));
    const valid = (path: string, method: string, body: unknown) =>
      validatorFor(path, method, 200).safeParse(body).success;

    expect(valid('/v4/contacts/changes', 'get', feed)).toBe(true);
    expect(valid('/v4/contacts/changes', 'get', { ...feed, data: [untagged] })).toBe(false);
    expect(valid('/v4/contacts/batch', 'post', { data: results })).toBe(true);
    const { etag: _etag, ...untaggedResult } = results[0] as Contact;
    expect(valid('/v4/contacts/batch', 'post', { data: [untaggedResult] })).toBe(false);
    // The listing and GET answer the contact itself (GET has the ETag header).
    expect(valid('/v4/contacts', 'get', { data: [untagged], meta: { next_cursor: null, limit: 1 } })).toBe(true);
    expect(valid('/v4/contacts', 'get', { data: [feed.data[0]], meta: { next_cursor: null, limit: 1 } })).toBe(false);
    expect(valid('/v4/contacts/{id}', 'get', { data: untagged })).toBe(true);
    expect(valid('/v4/contacts/{id}', 'get', { data: feed.data[0] })).toBe(false);
  });

  it('for the change feed, a batch and an import', async () => {
    const batch = await client.request('/v4/contacts/batch', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ operations: [{ op: 'create', contact: { name: 'A', join_date: '2024-01-02' } }] }),
    });
    expect(batch.status).toBe(200);
    await expectDocumented('/v4/contacts/batch', 'post', batch);
    const changes = await client.request('/v4/contacts/changes');
    expect(changes.status).toBe(200);
    await expectDocumented('/v4/contacts/changes', 'get', changes);
    const imported = await client.request('/v4/contacts/import', {
      method: 'POST',
      headers: { 'content-type': 'text/vcard' },
      body: 'BEGIN:VCARD\r\nVERSION:4.0\r\nFN:B\r\nEND:VCARD\r\n',
    });
    expect(imported.status).toBe(200);
    await expectDocumented('/v4/contacts/import', 'post', imported);
  });
});
