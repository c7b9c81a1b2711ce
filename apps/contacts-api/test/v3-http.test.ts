import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aClient, type Client } from './support/factories';
import { type Stack, startStack } from './support/servers';

/** v3's HTTP envelope: deprecation headers on every answer, Laravel error bodies, the reused auth. */
let stack: Stack;
let ada: Client;
let reader: Client;
beforeAll(async () => {
  stack = await startStack();
  ada = await aClient(stack);
  reader = await aClient(stack, { scopes: ['contacts:read'] });
});
afterAll(async () => stack?.close());

function expectDeprecationHeaders(response: Response, label: string) {
  const deprecation = response.headers.get('deprecation');
  const sunset = response.headers.get('sunset');
  const link = response.headers.get('link');
  // RFC 9745: a structured-field Date, "@" and Unix seconds.
  expect(deprecation, label).toMatch(/^@\d+$/);
  // RFC 8594: an IMF-fixdate HTTP-date, later than the deprecation.
  expect(sunset, label).toMatch(
    /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d GMT$/,
  );
  expect(Date.parse(sunset!) / 1000, label).toBeGreaterThan(Number(deprecation!.slice(1)));
  expect(link, label).toBe(
    `<${stack.apiUrl}/v4/contacts>; rel="successor-version", <${stack.apiUrl}/docs>; rel="deprecation"; type="text/html"`,
  );
}

describe('deprecation headers', () => {
  it('are on every v3 answer: successes, validation errors, 401, 403, 404, 405, 400 and 415', async () => {
    const created = await ada.request('/v3/contacts', { method: 'POST', body: new URLSearchParams({ name: 'H' }) });
    const id = ((await created.clone().json()) as { id: number }).id;
    const cases: Array<[string, () => Promise<Response>, number]> = [
      ['create', async () => created, 201],
      ['list', () => ada.request('/v3/contacts'), 200],
      ['page', () => ada.request('/v3/contacts/0/10'), 200],
      ['bad page', () => ada.request('/v3/contacts/0/0'), 422],
      [
        'update',
        () => ada.request(`/v3/contacts/${id}`, { method: 'PATCH', body: new URLSearchParams({ city: 'X' }) }),
        200,
      ],
      ['invalid', () => ada.request('/v3/contacts', { method: 'POST', body: new URLSearchParams({}) }), 422],
      ['no token', () => fetch(`${stack.apiUrl}/v3/contacts`), 401],
      ['bad token', () => fetch(`${stack.apiUrl}/v3/contacts`, { headers: { authorization: 'Bearer nope' } }), 401],
      [
        'scope',
        () => reader.request('/v3/contacts', { method: 'POST', body: new URLSearchParams({ name: 'X' }) }),
        403,
      ],
      ['missing contact', () => ada.request('/v3/contacts/2000000000', { method: 'DELETE' }), 404],
      ['unknown path', () => ada.request('/v3/nothing-here'), 404],
      ['bare /v3', () => ada.request('/v3'), 404],
      ['wrong method', () => ada.request('/v3/contacts', { method: 'PUT' }), 405],
      [
        'malformed JSON',
        () =>
          ada.request('/v3/contacts', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{"a":',
          }),
        400,
      ],
      [
        'unsupported type',
        () =>
          ada.request('/v3/contacts', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'name=x' }),
        415,
      ],
      ['delete', () => ada.request(`/v3/contacts/${id}`, { method: 'DELETE' }), 200],
    ];
    for (const [label, pending, status] of cases) {
      const response = await pending();
      expect(response.status, label).toBe(status);
      expectDeprecationHeaders(response, label);
      const body = (await response.json()) as Record<string, unknown>;
      if (status >= 400) expect(typeof body.message, label).toBe('string');
      if (status >= 400) expect(body, label).not.toHaveProperty('error');
    }
  });

  it('are on the CORS preflights of v3 paths (answered before the v3 routes), not on those of v4', async () => {
    const preflight = (path: string, method: string) =>
      fetch(`${stack.apiUrl}${path}`, {
        method: 'OPTIONS',
        headers: {
          origin: 'http://localhost:5301',
          'access-control-request-method': method,
          'access-control-request-headers': 'authorization',
        },
      });
    for (const [path, method] of [
      ['/v3/contacts', 'GET'],
      ['/v3/contacts', 'POST'],
      ['/v3/contacts/1', 'PATCH'],
      ['/v3', 'GET'],
    ] as const) {
      const response = await preflight(path, method);
      const label = `OPTIONS ${path} for ${method}`;
      expect(response.status, label).toBe(204);
      expect(response.headers.get('access-control-allow-origin'), label).toBe('*');
      expectDeprecationHeaders(response, label);
    }
    const v4 = await preflight('/v4/contacts', 'GET');
    expect(v4.status).toBe(204);
    expect(v4.headers.get('deprecation')).toBeNull();
    expect(v4.headers.get('sunset')).toBeNull();
  });

  it('are not on v4 answers', async () => {
    const response = await ada.request('/v4/contacts');
    expect(response.status).toBe(200);
    expect(response.headers.get('deprecation')).toBeNull();
    expect(response.headers.get('sunset')).toBeNull();
  });
});

describe('errors, Laravel-style', () => {
  it('401 is {"message":"Unauthenticated."} with a Bearer challenge, for a missing or an unknown token', async () => {
    const attempts: Array<Record<string, string>> = [
      {},
      { authorization: 'Bearer not-a-token' },
      { authorization: 'Basic abc' },
    ];
    for (const headers of attempts) {
      const response = await fetch(`${stack.apiUrl}/v3/contacts`, { headers });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
      expect(await response.text()).toBe('{"message":"Unauthenticated."}');
    }
  });

  it('401 for a revoked token too (the shared authentication middleware)', async () => {
    const revoked = await aClient(stack);
    expect((await revoked.request('/v3/contacts')).status).toBe(200);
    await stack.auth.personalTokens.revoke(revoked.member.id, revoked.tokenId);
    const after = await revoked.request('/v3/contacts');
    expect(after.status).toBe(401);
    expect(await after.json()).toEqual({ message: 'Unauthenticated.' });
  });

  it('403 for a token without the write scope is {"message"}, reads still work', async () => {
    const refused = await reader.json('/v3/contacts', { method: 'POST', json: { name: 'No' } });
    expect(refused.status).toBe(403);
    expect(Object.keys(refused.body as object)).toEqual(['message']);
    expect((await reader.request('/v3/contacts')).status).toBe(200);
  });

  it('405 names the allowed methods; 404 bodies are {"message"}', async () => {
    const response = await ada.request('/v3/contacts', { method: 'PUT' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toMatch(/POST/);
    expect(await response.json()).toEqual({ message: 'Method not allowed.' });
    const missing = await ada.request('/v3/contacts/abc', { method: 'DELETE' });
    expect(missing.status).toBe(404);
    expect(Object.keys((await missing.json()) as object)).toEqual(['message']);
  });
});
