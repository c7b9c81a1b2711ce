import { syncOpenApiPaths } from '@contacts/schemas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { aClient, type Client } from './support/factories';
import { type Stack, startStack } from './support/servers';

type Operation = { responses: Record<string, { content?: Record<string, { schema: unknown }> }> };

let stack: Stack;
let client: Client;
beforeAll(async () => {
  stack = await startStack();
  client = await aClient(stack);
});
afterAll(async () => stack?.close());

/** The answer must match the schema the sync endpoints' OpenAPI fragment documents for it. */
async function expectDocumented(path: string, method: string, response: Response): Promise<void> {
  const paths = syncOpenApiPaths() as Record<string, Record<string, Operation>>;
  const schema = paths[path]?.[method]?.responses[String(response.status)]?.content?.['application/json']?.schema;
  if (!schema) throw new Error(`no schema for ${method} ${path} → ${response.status}`);
  const result = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]).safeParse(await response.json());
  expect(result.error?.issues ?? []).toEqual([]);
}

describe('the sync endpoints answer as their OpenAPI fragment says', () => {
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
