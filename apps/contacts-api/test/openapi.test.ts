import { DPOP_SIGNING_ALGORITHMS } from '@contacts/config';
import {
  buildOpenApiDocument,
  DEFAULT_LIST_LIMIT,
  MAX_DELETE_IDS,
  MAX_IMAGE_BYTES,
  MAX_LIST_LIMIT,
  MAX_OAUTH_BODY_BYTES,
  megabytes,
} from '@contacts/schemas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openApiPaths } from '../src/http/openapi-paths';
import { aClient, type Client, multipart, PNG } from './support/factories';
import { type Stack, startStack } from './support/servers';

type JsonObject = Record<string, unknown>;

let stack: Stack;
let client: Client;
let document: JsonObject & { paths: Record<string, Record<string, { responses: Record<string, JsonObject> }>> };
beforeAll(async () => {
  // With a rate limit, as deployed by default (API_RATE_LIMIT), so that its 429 is documented.
  stack = await startStack({ apiRateLimit: { points: 100_000, duration: 60 } });
  client = await aClient(stack);
  document = (await (await fetch(`${stack.apiUrl}/openapi.json`)).json()) as typeof document;
});
afterAll(async () => stack?.close());

/** The response schema the document gives for (path, method, status), as a validator. */
function validatorFor(path: string, method: string, status: number): z.ZodType {
  const operation = document.paths[path]?.[method];
  const content = operation?.responses[String(status)]?.content as Record<string, { schema: unknown }> | undefined;
  const schema = content?.['application/json']?.schema;
  if (!schema) throw new Error(`the document does not describe ${method.toUpperCase()} ${path} → ${status}`);
  const components = (document.components as { schemas: JsonObject }).schemas;
  // Resolve component references as JSON Schema $defs so that a plain JSON Schema reader follows them.
  const relinked = JSON.parse(
    JSON.stringify({ ...(schema as JsonObject), $defs: components }).replaceAll('#/components/schemas/', '#/$defs/'),
  );
  return z.fromJSONSchema(relinked);
}

/**
 * A schema of the document as a validator of input, `format` taken as the annotation JSON Schema
 * 2020-12 makes it by default: the validators that do check it read it more loosely than the API
 * (RFC 3986's `uri` takes `http://`, RFC 3339's `date-time` a lowercase `t`), so the document
 * states each rule by a keyword every validator applies (pattern, maxLength, minItems, anyOf…).
 */
function validatorOf(schema: JsonObject): z.ZodType {
  const components = (document.components as { schemas: JsonObject }).schemas;
  const relinked = JSON.stringify({ ...schema, $defs: components }).replaceAll('#/components/schemas/', '#/$defs/');
  return z.fromJSONSchema(
    JSON.parse(relinked, (key, value) => (key === 'format' && typeof value === 'string' ? undefined : value)),
  );
}

/** The schema of parameter `name` of `method path`, declared on the operation or on its path. */
function parameterSchema(path: string, method: string, name: string): JsonObject {
  const item = document.paths[path] as unknown as Record<string, { parameters?: JsonObject[] }> & {
    parameters?: JsonObject[];
  };
  const parameters = [...(item.parameters ?? []), ...(item[method]?.parameters ?? [])];
  const parameter = parameters.find((candidate) => candidate.name === name);
  if (!parameter) throw new Error(`the document gives ${method.toUpperCase()} ${path} no parameter ${name}`);
  return parameter.schema as JsonObject;
}

/** A path item's operations are its HTTP methods (beside them: `parameters`, `servers`). */
const isOperation = (key: string) => ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'].includes(key);

/** The parameters the document gives GET `path`. */
function getParameters(path: string): JsonObject[] {
  const operation = document.paths[path]?.get as unknown as { parameters?: JsonObject[] } | undefined;
  return operation?.parameters ?? [];
}

/**
 * Response headers the document does not name per operation: HTTP's own (framing, the connection,
 * caching; Content-Type is the response's `content`), CORS's, and the nosniff every answer carries.
 */
const GENERAL_HEADERS = new Set([
  'cache-control',
  'connection',
  'content-length',
  'content-type',
  'date',
  'keep-alive',
  'transfer-encoding',
  'vary',
  'x-content-type-options',
]);

/** The answer's body matches the schema the document gives its status, and it sends no header the document does not name there. */
async function expectDocumented(path: string, method: string, response: Response): Promise<void> {
  const body: unknown = await response.json();
  const result = validatorFor(path, method, response.status).safeParse(body);
  expect(result.error?.issues ?? []).toEqual([]);
  const declared = Object.keys(document.paths[path]?.[method]?.responses[String(response.status)]?.headers ?? {});
  const sent: string[] = [];
  response.headers.forEach((_value, name) => {
    sent.push(name);
  });
  const undeclared = sent.filter(
    (name) =>
      !GENERAL_HEADERS.has(name) &&
      !name.startsWith('access-control-') &&
      !declared.some((header) => header.toLowerCase() === name),
  );
  expect(undeclared, `${method.toUpperCase()} ${path} → ${response.status}`).toEqual([]);
}

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1, generated from the registered routes, every one of which has a guard', () => {
    expect(document.openapi).toBe('3.1.0');
    const unguarded = stack.api.routes.filter((route) => route.contract === undefined);
    expect(unguarded.map((route) => `${route.method} ${route.path}`)).toEqual([]);
    // The served document is the one the routers generate, nothing added or left out.
    const generated = buildOpenApiDocument({
      serverUrl: stack.apiConfig.publicUrl,
      authUrl: stack.apiConfig.authUrl,
      paths: openApiPaths(stack.api.routes),
      dpopAlgorithms: DPOP_SIGNING_ALGORITHMS,
    });
    expect(document).toEqual(generated);
    // The DPoP algorithms it names are the ones the API accepts, not a list of its own.
    expect(JSON.stringify(document.info)).toContain(`algorithms ${DPOP_SIGNING_ALGORITHMS.join(', ')})`);
    const documented = Object.entries(document.paths)
      .filter(([path]) => !path.startsWith('/oauth/'))
      .flatMap(([path, item]) =>
        Object.keys(item)
          .filter((method) => isOperation(method))
          .map((method) => `${method} ${path}`),
      );
    expect(documented.sort()).toEqual(stack.api.routes.map((route) => `${route.method} ${route.path}`).sort());
    expect(documented).toContain('post /v3/contacts/{id}');
    const operationIds = Object.values(document.paths).flatMap((item) =>
      Object.entries(item)
        .filter(([method]) => isOperation(method))
        .map(([, operation]) => (operation as unknown as { operationId: string }).operationId),
    );
    expect(new Set(operationIds).size).toBe(operationIds.length);
  });

  it('requires contacts:read for reads and contacts:write for writes, by OAuth, personal access token or DPoP-bound token', () => {
    const security = (path: string, method: string) =>
      (document.paths[path]?.[method] as unknown as { security?: unknown } | undefined)?.security;
    expect(security('/v4/contacts', 'get')).toEqual([
      { oauth2: ['contacts:read'] },
      { bearer: ['contacts:read'] },
      { dpop: ['contacts:read'] },
    ]);
    expect(security('/v3/contacts/{id}', 'patch')).toEqual([
      { oauth2: ['contacts:write'] },
      { bearer: ['contacts:write'] },
      { dpop: ['contacts:write'] },
    ]);
    const schemes = (document.components as { securitySchemes: Record<string, JsonObject> }).securitySchemes;
    expect(schemes.oauth2).toEqual({
      type: 'oauth2',
      description: expect.any(String),
      flows: {
        authorizationCode: {
          // The authorization server's own URL (AUTH_URL; this stack runs it apart from the API).
          authorizationUrl: `${stack.apiConfig.authUrl}/oauth/authorize`,
          tokenUrl: `${stack.apiConfig.authUrl}/oauth/token`,
          refreshUrl: `${stack.apiConfig.authUrl}/oauth/token`,
          scopes: {
            'contacts:read': expect.any(String),
            'contacts:write': expect.any(String),
            '*': expect.any(String),
          },
        },
      },
    });
    expect(schemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(schemes.dpop).toMatchObject({ type: 'http', scheme: 'dpop' });
    expect((document.tags as Array<{ name: string }>).map((tag) => tag.name)).toEqual([
      'Contacts v4',
      'v3 (deprecated)',
      'OAuth 2.0',
    ]);
    expect(
      Object.keys(document.paths)
        .filter((path) => path.startsWith('/oauth/'))
        .sort(),
    ).toEqual(['/oauth/introspect', '/oauth/revoke', '/oauth/token']);
  });

  it("documents every answer the auth server's OAuth endpoints give (their tests: apps/auth rate-limits, database-outage)", () => {
    const responses = (path: string) =>
      (document.paths[path] as unknown as { post: { responses: Record<string, JsonObject> } }).post.responses;
    expect(Object.keys(responses('/oauth/token')).sort()).toEqual(['200', '400', '401', '413', '429', '503']);
    for (const path of ['/oauth/introspect', '/oauth/revoke']) {
      expect(Object.keys(responses(path)).sort()).toEqual(['200', '400', '401', '413', '429', '503']);
      expect(responses(path)['429']).toMatchObject({ headers: { 'Retry-After': expect.any(Object) } });
    }
    expect(responses('/oauth/token')['401']).toMatchObject({ headers: { 'WWW-Authenticate': expect.any(Object) } });
    expect(responses('/oauth/token')['429']).toMatchObject({ headers: { 'Retry-After': expect.any(Object) } });
    expect(JSON.stringify(responses('/oauth/revoke')['413'])).toContain(`${MAX_OAUTH_BODY_BYTES / 1024} KiB`);
  });

  it('states the limits the code enforces', () => {
    const text = JSON.stringify(document);
    expect(text).toContain(`at most ${megabytes(MAX_IMAGE_BYTES)}`);
    expect(megabytes(MAX_IMAGE_BYTES)).toBe('12 MB');
    expect(text).toContain(`more than ${MAX_DELETE_IDS} ids`);
    const limit = (document.paths['/v3/contacts/{offset}/{limit}'] as unknown as { parameters: JsonObject[] })
      .parameters[1] as { schema: { maximum: number } };
    expect(limit.schema.maximum).toBe(MAX_LIST_LIMIT);
  });

  it('refuses by its input schemas what the API refuses: a client validating by the document sends no such value', async () => {
    const components = (document.components as { schemas: Record<string, JsonObject> }).schemas;
    const inputSchema = (component: string) => validatorOf(components[component] as JsonObject);
    const refused: [string, Record<string, unknown>][] = [
      ['a name of spaces only', { name: '   ' }],
      ['a NUL character in a name', { name: 'nul\u0000char' }],
      ['a NUL character in a city', { name: 'x', city: 'a\u0000b' }],
      ['a website that is no http(s) URL', { name: 'x', website: 'ftp://example.com/' }],
      ['a javascript: website', { name: 'x', website: 'javascript:alert(1)' }],
      ['a website of the scheme alone', { name: 'x', website: 'http://' }],
      ['a secure website of the scheme alone', { name: 'x', website: 'https://' }],
      ['a website with a port over 65535', { name: 'x', website: 'https://example.com:99999' }],
      ['an e-mail local part over 64 characters', { name: 'x', email: `${'a'.repeat(65)}@example.com` }],
      ['a group id 0 as digits', { name: 'x', group_id: '0' }],
      ['a business category id past the integer range as digits', { name: 'x', business_category_id: '2147483648' }],
      ['an address over 255 characters', { name: 'x', address: 'a'.repeat(256) }],
    ];
    for (const [why, body] of refused) {
      for (const [path, component] of [
        ['/v4/contacts', 'ContactInput'],
        ['/v3/contacts', 'ContactInputV3'],
      ] as const) {
        const answer = await client.request(path, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        expect(answer.status, `${why}: ${path}`).toBe(422);
        expect(inputSchema(component).safeParse(body).success, `${why}: ${component}`).toBe(false);
      }
    }
    // What the schemas accept, the API accepts: the rules are not stricter in the document.
    const accepted = {
      name: ' Ada ',
      email: `${'a'.repeat(64)}@example.com`,
      website: 'HTTPS://user@example.com:65535/',
      group_id: null,
      business_category_id: '',
    };
    expect(inputSchema('ContactInput').safeParse(accepted).success).toBe(true);
    expect(
      (
        await client.request('/v4/contacts', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(accepted),
        })
      ).status,
    ).toBe(201);
    // E-mail addresses by their standard format (RFC 6531's, as JSON Schema names it), which "not-an-email" is not.
    const email = JSON.stringify((components.ContactInput as { properties: JsonObject }).properties.email);
    expect(email).toContain('"format":"idn-email"');
    expect(
      (
        await client.request('/v4/contacts', {
          method: 'POST',
          body: new URLSearchParams({ name: 'x', email: 'not-an-email' }),
        })
      ).status,
    ).toBe(422);
  });

  it('refuses by its parameter and delete schemas what the API refuses: updated_since, the v3 offset, an empty DELETE', async () => {
    const updatedSince = validatorOf(parameterSchema('/v4/contacts', 'get', 'updated_since'));
    // RFC 3339 allows a lowercase t and z, and its ABNF a leap second; the API's parser takes neither, nor a space.
    for (const instant of ['2026-11-27t14:30:00z', '2026-11-27T14:30:60Z', '2026-11-27 14:30:00Z']) {
      const answer = await client.request(`/v4/contacts?updated_since=${encodeURIComponent(instant)}`);
      expect(answer.status, instant).toBe(422);
      await answer.arrayBuffer();
      expect(updatedSince.safeParse(instant).success, instant).toBe(false);
    }
    for (const instant of ['2026-11-27T16:30:00+02:00', '2026-11-27T14:30:00.123Z']) {
      const answer = await client.request(`/v4/contacts?updated_since=${encodeURIComponent(instant)}`);
      expect(answer.status, instant).toBe(200);
      await answer.arrayBuffer();
      expect(updatedSince.safeParse(instant).success, instant).toBe(true);
    }

    // The v3 offset's real maximum, and a refusal that names it.
    const offset = validatorOf(parameterSchema('/v3/contacts/{offset}/{limit}', 'get', 'offset'));
    const pastMaximum = await client.json<{ errors: { offset: string[] } }>('/v3/contacts/1000000000000000/1');
    expect(pastMaximum.status).toBe(422);
    expect(pastMaximum.body.errors.offset).toEqual(['The offset must be an integer from 0 to 999999999999999.']);
    expect(offset.safeParse(1_000_000_000_000_000).success).toBe(false);
    const atMaximum = await client.json<unknown[]>('/v3/contacts/999999999999999/1');
    expect(atMaximum).toMatchObject({ status: 200, body: [] });
    expect(offset.safeParse(999_999_999_999_999).success).toBe(true);

    // DELETE /v4/contacts needs contact_ids (not empty) or group_id.
    const deletion = validatorOf({ $ref: '#/components/schemas/DeleteContacts' });
    for (const body of [{}, { contact_ids: [] }, { ignored: 1 }]) {
      const answer = await client.request('/v4/contacts', {
        method: 'DELETE',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(answer.status, JSON.stringify(body)).toBe(422);
      await answer.arrayBuffer();
      expect(deletion.safeParse(body).success, JSON.stringify(body)).toBe(false);
    }
    for (const body of [{ contact_ids: [2_000_000_000] }, { group_id: 2_000_000_000 }]) {
      expect(deletion.safeParse(body).success, JSON.stringify(body)).toBe(true);
    }
  });

  it('documents query values as what they stand for: the page size an integer with its range, updated_since a date-time', () => {
    for (const path of ['/v4/contacts', '/v4/contacts/changes']) {
      const limit = getParameters(path).find((parameter) => parameter.name === 'limit') as { schema: JsonObject };
      expect(limit.schema).toEqual({ type: 'integer', minimum: 1, maximum: MAX_LIST_LIMIT });
      expect(limit).toMatchObject({ description: expect.stringContaining(`(default ${DEFAULT_LIST_LIMIT})`) });
    }
    expect(getParameters('/v4/contacts').find((parameter) => parameter.name === 'updated_since')).toMatchObject({
      schema: { type: 'string', format: 'date-time' },
    });
  });

  it('documents the answers every body and the rate limit give, on every operation that has them', () => {
    const operations = Object.entries(document.paths)
      .filter(([path]) => !path.startsWith('/oauth/'))
      .flatMap(([path, item]) =>
        Object.entries(item)
          .filter(([method]) => isOperation(method))
          .map(([method, operation]) => ({ name: `${method} ${path}`, v3: path.startsWith('/v3/'), operation })),
      );
    const withBody = operations.filter(({ operation }) => 'requestBody' in operation);
    expect(withBody.map(({ name }) => name).sort()).toEqual([
      'delete /v4/contacts',
      'patch /v3/contacts/{id}',
      'post /v3/contacts',
      'post /v3/contacts/{id}',
      'post /v4/contacts',
      'post /v4/contacts/batch',
      'post /v4/contacts/import',
      'post /v4/contacts/{id}',
    ]);
    for (const { name, v3, operation } of withBody) {
      const shape = { 'application/json': { schema: { $ref: `#/components/schemas/${v3 ? 'MessageV3' : 'Error'}` } } };
      for (const status of ['400', '413', '415']) {
        expect(operation.responses[status]?.content, `${name} ${status}`).toEqual(shape);
      }
      expect(operation.responses['400']?.description, name).toMatch(/UTF-8.*Content-Encoding/);
      expect(operation.responses['415']?.headers, name).toHaveProperty('Accept-Encoding');
    }
    expect(document.paths['/v4/contacts']?.post?.responses['413']?.description).toMatch(
      /^The image is larger than 12 MB\. .*JSON or form body larger than 1 MB/,
    );
    for (const { name, operation } of operations) {
      // The limit's state on every answer given past the limit, errors included (not the access
      // check's 401, before it); the request id everywhere; Allow on a 405; the scope challenge on a 403.
      for (const [status, response] of Object.entries(operation.responses)) {
        const headers = Object.keys((response as { headers?: object }).headers ?? {});
        expect(headers, `${name} ${status}`).toContain('X-Request-Id');
        if (!['401', '403'].includes(status)) {
          expect(headers, `${name} ${status}`).toContain('RateLimit-Remaining');
        }
        if (status === '401') expect(headers, `${name} ${status}`).not.toContain('RateLimit-Remaining');
        if (status === '401' || status === '403') expect(headers, `${name} ${status}`).toContain('WWW-Authenticate');
        if (status === '405') expect(headers, `${name} ${status}`).toContain('Allow');
      }
      expect(Object.keys(operation.responses['429']?.headers ?? {}), name).toEqual(
        expect.arrayContaining(['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']),
      );
    }
    expect((document.info as { description: string }).description).toMatch(/405.*`Allow`/);
  });

  it("documents the create's Location, and the image's ETag as its own validator for If-None-Match", () => {
    const created = document.paths['/v4/contacts']?.post?.responses['201'] as { headers: Record<string, JsonObject> };
    expect(Object.keys(created.headers)).toEqual([
      'ETag',
      'Location',
      'Idempotent-Replayed',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'X-Request-Id',
    ]);
    const image = document.paths['/v4/contacts/{id}/image']?.get as unknown as {
      parameters: JsonObject[];
      responses: Record<string, { headers: { ETag: { description: string } } }>;
    };
    for (const status of ['200', '304']) {
      const etag = image.responses[status]?.headers.ETag.description ?? '';
      expect(etag, status).toMatch(/If-None-Match/);
      expect(etag, status).not.toMatch(/If-Match/);
    }
    expect(image.parameters).toContainEqual(expect.objectContaining({ name: 'If-None-Match', in: 'header' }));
  });

  it("documents the image's removal: contacts:write, If-Match (the contact's ETag), 204, 404, 412 and the rate limit", async () => {
    const removal = document.paths['/v4/contacts/{id}/image']?.delete as unknown as {
      operationId: string;
      security: unknown;
      parameters: JsonObject[];
      responses: Record<string, JsonObject>;
    };
    expect(removal.operationId).toBe('deleteContactImage');
    expect(removal.security).toEqual([
      { oauth2: ['contacts:write'] },
      { bearer: ['contacts:write'] },
      { dpop: ['contacts:write'] },
    ]);
    expect(removal.parameters).toContainEqual(expect.objectContaining({ name: 'If-Match', in: 'header' }));
    expect(Object.keys(removal.responses)).toEqual(expect.arrayContaining(['204', '404', '412', '429']));
    expect(removal.responses['204']?.content).toBeUndefined();
    await expectDocumented(
      '/v4/contacts/{id}/image',
      'delete',
      await client.request('/v4/contacts/2000000000/image', { method: 'DELETE' }),
    );
  });

  it('describes real responses, successes and errors alike', async () => {
    // The validator really validates: a wrong shape is refused.
    expect(validatorFor('/v4/contacts/{id}', 'get', 200).safeParse({ data: { id: 'x' } }).success).toBe(false);
    const created = await client.request('/v4/contacts', {
      method: 'POST',
      body: multipart(
        { name: 'Documented', email: 'doc@example.com', join_date: '2020-01-31' },
        { bytes: PNG, filename: 'a.png', type: 'image/png' },
      ),
    });
    const id = ((await created.clone().json()) as { data: { id: number } }).data.id;
    await expectDocumented('/v4/contacts', 'post', created);
    await expectDocumented('/v4/contacts', 'get', await client.request('/v4/contacts?limit=1'));
    await expectDocumented('/v4/contacts/{id}', 'get', await client.request(`/v4/contacts/${id}`));
    // An error past the rate limit carries its state (RateLimit-*), as a success does.
    const missing = await client.request('/v4/contacts/2000000000');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('RateLimit-Remaining')).toEqual(expect.any(String));
    await expectDocumented('/v4/contacts/{id}', 'get', missing);
    await expectDocumented(
      '/v4/contacts',
      'post',
      await client.request('/v4/contacts', { method: 'POST', body: new URLSearchParams({ email: 'x' }) }),
    );
    await expectDocumented('/v4/contacts', 'get', await fetch(`${stack.apiUrl}/v4/contacts`));
    await expectDocumented('/v4/groups', 'get', await client.request('/v4/groups'));
    await expectDocumented('/v4/business-categories', 'get', await client.request('/v4/business-categories'));
    await expectDocumented(
      '/v4/contacts',
      'delete',
      await client.request('/v4/contacts', {
        method: 'DELETE',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ contact_ids: [id] }),
      }),
    );
  });
});

describe('OpenAPI document, v3 (deprecated)', () => {
  it('marks every v3 operation deprecated, and no v4 one', () => {
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (!isOperation(method)) continue;
        expect((operation as { deprecated?: boolean }).deprecated === true, `${method} ${path}`).toBe(
          path.startsWith('/v3/'),
        );
      }
    }
  });

  it('describes real v3 responses exactly (no extra key), successes and Laravel errors alike', async () => {
    const form = (fields: Record<string, string>) => ({ method: 'POST', body: new URLSearchParams(fields) });
    // The validator really validates: user_id is not part of the update answer.
    const created = await client.request('/v3/contacts', form({ name: 'Documented v3', email: 'doc3@example.com' }));
    const contact = (await created.clone().json()) as { id: number; user_id: number };
    expect(validatorFor('/v3/contacts/{id}', 'patch', 200).safeParse(contact).success).toBe(false);
    await expectDocumented('/v3/contacts', 'post', created);
    await expectDocumented(
      '/v3/contacts',
      'post',
      await client.request('/v3/contacts', form({ name: 'Again', email: 'doc3@example.com' })),
    );
    await expectDocumented('/v3/contacts', 'post', await client.request('/v3/contacts', form({ email: 'x' })));
    await expectDocumented('/v3/contacts', 'get', await client.request('/v3/contacts'));
    await expectDocumented('/v3/contacts', 'get', await fetch(`${stack.apiUrl}/v3/contacts`));
    await expectDocumented('/v3/contacts/{offset}/{limit}', 'get', await client.request('/v3/contacts/0/1'));
    await expectDocumented('/v3/contacts/{offset}/{limit}', 'get', await client.request('/v3/contacts/0/0'));
    await expectDocumented(
      '/v3/contacts/{id}',
      'patch',
      await client.request(`/v3/contacts/${contact.id}`, { method: 'PATCH', body: new URLSearchParams({ city: 'Y' }) }),
    );
    await expectDocumented(
      '/v3/contacts/{id}',
      'patch',
      await client.request('/v3/contacts/2000000000', { method: 'PATCH' }),
    );
    await expectDocumented(
      '/v3/contacts/{id}',
      'delete',
      await client.request(`/v3/contacts/${contact.id}`, { method: 'DELETE' }),
    );
    // A POST without `_method`: 405 with Allow, past the rate limit.
    const spoofed = await client.request(`/v3/contacts/${contact.id}`, form({ city: 'Z' }));
    expect(spoofed.status).toBe(405);
    expect(spoofed.headers.get('Allow')).toBe('PATCH, DELETE, POST');
    await expectDocumented('/v3/contacts/{id}', 'post', spoofed);
    // A token without the scope: 403 with the challenge, as in v4.
    const reader = await aClient(stack, { scopes: ['contacts:read'] });
    const refused = await reader.request('/v3/contacts', form({ name: 'Not written' }));
    expect(refused.status).toBe(403);
    expect(refused.headers.get('WWW-Authenticate')).toContain('error="insufficient_scope"');
    await expectDocumented('/v3/contacts', 'post', refused);
  });
});

describe('docs page', () => {
  it('serves Swagger UI and its assets from the npm package, with no CDN', async () => {
    const page = await fetch(`${stack.apiUrl}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).not.toMatch(/https?:\/\//);
    for (const asset of html.matchAll(/(?:src|href)="([^"]+)"/g)) {
      const response = await fetch(`${stack.apiUrl}${asset[1]}`);
      expect(response.status, asset[1]).toBe(200);
      await response.arrayBuffer();
    }
    expect((await fetch(`${stack.apiUrl}/docs/../package.json`)).status).toBe(404);
  });

  it('is never framed by another page and sends no referrer, its scripts and OAuth callback included', async () => {
    // Signed in, the page holds a member's token and sends any request with it: clickjacking bait.
    for (const path of ['/docs', '/docs/init.js', '/docs/oauth2-redirect.html']) {
      const answer = await fetch(`${stack.apiUrl}${path}`);
      expect(answer.status, path).toBe(200);
      expect(answer.headers.get('content-security-policy'), path).toContain("frame-ancestors 'none'");
      expect(answer.headers.get('x-frame-options'), path).toBe('DENY');
      expect(answer.headers.get('referrer-policy'), path).toBe('no-referrer');
      await answer.arrayBuffer();
    }
  });

  it('lets no cache keep the OAuth callback, whose address carries a code (its scripts are cacheable)', async () => {
    const callback = await fetch(`${stack.apiUrl}/docs/oauth2-redirect.html?code=abc&state=xyz`);
    expect(callback.headers.get('cache-control')).toBe('no-store');
    const script = await fetch(`${stack.apiUrl}/docs/oauth2-redirect.js`);
    expect(script.headers.get('cache-control')).toBe('public, max-age=86400');
    await Promise.all([callback.arrayBuffer(), script.arrayBuffer()]);
  });
});
