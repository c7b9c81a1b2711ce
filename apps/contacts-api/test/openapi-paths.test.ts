import { Router } from '@koa/router';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { withRequiredScope } from '../src/auth/middleware';
import { koaGuard } from '../src/http/guard';
import { openApiPaths, registeredRoutes } from '../src/http/openapi-paths';
import { asRateLimit } from '../src/http/rate-limit';

/** Stand-ins for the access checks app.ts builds, marked with the scope each requires. */
const reads = withRequiredScope((_ctx, next) => next(), 'read');
const writes = withRequiredScope((_ctx, next) => next(), 'write');

const guarded = (operationId: string, scope: 'contacts:read' | 'contacts:write') =>
  koaGuard({
    operationId,
    summary: `Summary of ${operationId}`,
    scope,
    params: z.object({ id: z.string().regex(/^\d+$/).meta({ type: 'integer', minimum: 1 }) }),
    query: z.object({ q: z.string().max(5).optional().describe('A search.') }),
    responses: { 200: { description: 'Found.', schema: z.object({ ok: z.boolean() }) } },
  }).middleware;

describe('openApiPaths', () => {
  it('documents each guarded route from its contract, path parameters shared on the path', () => {
    const router = new Router();
    router.get('/v4/things/:id', reads, guarded('getThing', 'contacts:read'), () => {});
    router.delete('/v4/things/:id', writes, guarded('deleteThing', 'contacts:write'), () => {});
    const paths = openApiPaths(registeredRoutes([router]));
    expect(Object.keys(paths)).toEqual(['/v4/things/{id}']);
    const item = paths['/v4/things/{id}'] as Record<string, Record<string, unknown>>;
    expect(item.parameters).toEqual([
      { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } },
    ]);
    expect(item.get).toMatchObject({
      tags: ['Contacts v4'],
      operationId: 'getThing',
      summary: 'Summary of getThing',
      parameters: [
        { name: 'q', in: 'query', required: false, schema: { type: 'string', maxLength: 5 }, description: 'A search.' },
      ],
      security: [{ oauth2: ['contacts:read'] }, { bearer: ['contacts:read'] }, { dpop: ['contacts:read'] }],
    });
    expect(Object.keys(item.delete?.responses as object)).toEqual(['200', '401', '403', '503']);
    expect(item.delete?.deprecated).toBeUndefined();
  });

  it('marks v3 operations deprecated, with the deprecation headers on every answer', () => {
    const router = new Router();
    router.get('/v3/things/:id', reads, guarded('getThingV3', 'contacts:read'), () => {});
    const operation = (
      openApiPaths(registeredRoutes([router]))['/v3/things/{id}'] as Record<string, Record<string, unknown>>
    ).get;
    expect(operation?.deprecated).toBe(true);
    expect(operation?.tags).toEqual(['v3 (deprecated)']);
    const responses = operation?.responses as Record<string, { headers: object }>;
    for (const status of ['200', '401', '403', '503']) {
      expect(Object.keys(responses[status]?.headers ?? {}), status).toEqual(
        expect.arrayContaining(['Deprecation', 'Sunset', 'Link']),
      );
    }
  });

  it('refuses a route whose guard declares another scope than its access check requires', () => {
    const router = new Router();
    router.get('/v4/things/:id', writes, guarded('getThing', 'contacts:read'), () => {});
    expect(() => registeredRoutes([router])).toThrow(
      'GET /v4/things/{id} declares the scope contacts:read but its access check requires contacts:write.',
    );
    const unchecked = new Router();
    unchecked.get('/v4/things/:id', guarded('getThing', 'contacts:read'), () => {});
    expect(() => registeredRoutes([unchecked])).toThrow('its access check requires none');
  });

  it('refuses a fixed path registered after a parameter path that answers it first', () => {
    const router = new Router();
    router.get('/v4/things/:id', reads, guarded('getThing', 'contacts:read'), () => {});
    router.get('/v4/things/count', reads, guarded('countThings', 'contacts:read'), () => {});
    expect(() => registeredRoutes([router])).toThrow(
      'GET /v4/things/count is registered after GET /v4/things/{id}, which answers it first: register it before.',
    );
    const before = new Router();
    before.get('/v4/things/count', reads, guarded('countThings', 'contacts:read'), () => {});
    before.get('/v4/things/:id', reads, guarded('getThing', 'contacts:read'), () => {});
    before.get('/v4/things/:id/parts', reads, guarded('getParts', 'contacts:read'), () => {});
    expect(registeredRoutes([before]).map((route) => route.path)).toEqual([
      '/v4/things/count',
      '/v4/things/{id}',
      '/v4/things/{id}/parts',
    ]);
  });

  it("adds a route's own 403 to the access check's, which keeps its scope challenge", () => {
    const router = new Router();
    const own = koaGuard({
      operationId: 'groupThing',
      summary: 'groupThing',
      scope: 'contacts:read',
      responses: { 200: { description: 'Found.' }, 403: { description: 'Here: not a member of the group.' } },
    }).middleware;
    router.get('/v4/groups/:id/thing', reads, own, () => {});
    const forbidden = (
      openApiPaths(registeredRoutes([router]))['/v4/groups/{id}/thing'] as Record<
        string,
        { responses: Record<string, { description: string; headers?: object }> }
      >
    ).get?.responses['403'];
    expect(forbidden?.description).toMatch(/^The token lacks the scope .* Here: not a member of the group\.$/);
    expect(forbidden?.headers).toHaveProperty('WWW-Authenticate');
  });

  it('refuses to document a route without a guard', () => {
    const router = new Router();
    router.get('/v4/open', () => {});
    expect(registeredRoutes([router])).toEqual([
      { method: 'get', path: '/v4/open', contract: undefined, rateLimited: false, reportsRateLimit: false },
    ]);
    expect(() => openApiPaths(registeredRoutes([router]))).toThrow('GET /v4/open has no guard');
  });

  it('adds 400, 413 and 415 to every operation with a body, and 429 to every one behind the rate limit', () => {
    const rateLimit = asRateLimit((_ctx, next) => next());
    const router = new Router();
    const write = (operationId: string) =>
      koaGuard({
        operationId,
        summary: operationId,
        scope: 'contacts:write',
        body: z.object({ name: z.string() }),
        responses: { 200: { description: 'Done.' }, 413: { description: 'The image is too large.' } },
      }).middleware;
    router.post('/v4/things', writes, rateLimit, write('createThing'), () => {});
    router.post('/v3/things', writes, write('createThingV3'), () => {});
    router.get('/v4/things/:id', reads, rateLimit, guarded('getThing', 'contacts:read'), () => {});
    const paths = openApiPaths(registeredRoutes([router])) as Record<
      string,
      Record<string, { responses: Record<string, { description: string; headers?: object; content?: object }> }>
    >;
    const v4 = paths['/v4/things']!.post!.responses;
    expect(Object.keys(v4).sort()).toEqual(['200', '400', '401', '403', '413', '415', '429', '503']);
    expect(v4['400']?.description).toMatch(/Content-Encoding/);
    // The route's own 413 is kept, and the body's limits are added to it.
    expect(v4['413']?.description).toMatch(/^The image is too large\. .*1 MB/);
    expect(v4['415']?.headers).toHaveProperty('Accept-Encoding');
    expect(Object.keys(v4['429']?.headers ?? {}).sort()).toEqual([
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'Retry-After',
      'X-Request-Id',
    ]);
    // Every answer names its request id; a limit that is not the per-token one reports no state.
    expect(v4['200']?.headers).toEqual({ 'X-Request-Id': expect.any(Object) });
    expect(v4['429']?.content).toEqual({ 'application/json': { schema: { $ref: '#/components/schemas/Error' } } });
    // v3: the same answers in Laravel's shape, and no 429 where no rate limit stands.
    const v3 = paths['/v3/things']!.post!.responses;
    expect(Object.keys(v3).sort()).toEqual(['200', '400', '401', '403', '413', '415', '503']);
    expect(v3['415']?.content).toEqual({ 'application/json': { schema: { $ref: '#/components/schemas/MessageV3' } } });
    // Without a body: 429 only.
    expect(Object.keys(paths['/v4/things/{id}']!.get!.responses).sort()).toEqual(['200', '401', '403', '429', '503']);
  });
});
