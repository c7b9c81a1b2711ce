import { Router } from '@koa/router';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { koaGuard } from '../src/http/guard';
import { openApiPaths, registeredRoutes } from '../src/http/openapi-paths';

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
    router.get('/v4/things/:id', guarded('getThing', 'contacts:read'), () => {});
    router.delete('/v4/things/:id', guarded('deleteThing', 'contacts:write'), () => {});
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
    router.get('/v3/things/:id', guarded('getThingV3', 'contacts:read'), () => {});
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

  it('refuses to document a route without a guard', () => {
    const router = new Router();
    router.get('/v4/open', () => {});
    expect(registeredRoutes([router])).toEqual([{ method: 'get', path: '/v4/open', contract: undefined }]);
    expect(() => openApiPaths(registeredRoutes([router]))).toThrow('GET /v4/open has no guard');
  });
});
