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

/** The answer must match the schema the served document gives the sync endpoint. */
async function expectDocumented(path: string, method: string, response: Response): Promise<void> {
  const schema = paths[path]?.[method]?.responses[String(response.status)]?.content?.['application/json']?.schema;
  if (!schema) throw new Error(`no schema for ${method} ${path} → ${response.status}`);
  // Component references resolved as JSON Schema $defs, so that a plain JSON Schema reader follows them.
  const relinked = JSON.parse(
    JSON.stringify({ ...(schema as object), $defs: components }).replaceAll('#/components/schemas/', '#/$defs/'),
  );
  const result = z.fromJSONSchema(relinked).safeParse(await response.json());
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
