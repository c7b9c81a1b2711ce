import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@contacts/config';
import { Router } from '@koa/router';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { errorEnvelopeOf, errorRenderer } from '../src/http/errors';
import { koaGuard } from '../src/http/guard';

const named = (operationId: string) => ({ operationId, summary: operationId, scope: 'contacts:read' as const });

let server: Server;
let baseUrl: string;

beforeAll(async () => {
  const app = new Koa();
  app.use(errorRenderer(createLogger('guard-test', { LOG_LEVEL: 'silent' }), errorEnvelopeOf));
  const router = new Router();
  const sum = koaGuard({
    ...named('sum'),
    params: z.object({ a: z.string().regex(/^\d+$/, 'a must be digits.').transform(Number) }),
    query: z.object({ b: z.string().regex(/^\d+$/, 'b must be digits.').transform(Number) }),
    responses: { 200: { description: 'The sum.', schema: z.object({ sum: z.number() }) } },
  });
  router.get('/sum/:a', sum.middleware, (ctx) => {
    const { params, query } = sum.of(ctx);
    ctx.body = { sum: params.a + query.b };
  });
  const drifting = koaGuard({
    ...named('drifting'),
    responses: { 200: { description: 'A sum.', schema: z.object({ sum: z.number() }) } },
  });
  router.get('/drifting', drifting.middleware, (ctx) => {
    ctx.body = { sum: 'three' };
  });
  const undeclared = koaGuard({ ...named('undeclared'), responses: { 200: { description: 'Nothing.' } } });
  router.get('/undeclared', undeclared.middleware, (ctx) => {
    ctx.status = 201;
    ctx.body = {};
  });
  const item = koaGuard({
    ...named('item'),
    params: z.object({ id: z.string().regex(/^\d+$/) }),
    paramsNotFound: true,
    responses: { 200: { description: 'The item.' } },
  });
  router.get('/items/:id', item.middleware, (ctx) => {
    ctx.body = { id: Number(ctx.params.id) };
  });
  app.use(router.routes());
  server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const get = async (path: string) => {
  const response = await fetch(`${baseUrl}${path}`);
  return { status: response.status, body: (await response.json()) as unknown };
};

describe('koaGuard', () => {
  it('hands the handler parsed params and query', async () => {
    expect(await get('/sum/2?b=3')).toEqual({ status: 200, body: { sum: 5 } });
  });

  it('refuses invalid params and query together with one 422 in the documented shape', async () => {
    expect(await get('/sum/x?b=y')).toEqual({
      status: 422,
      body: {
        error: {
          code: 'validation_failed',
          message: 'The given data was invalid.',
          fields: { a: ['a must be digits.'], b: ['b must be digits.'] },
        },
      },
    });
  });

  it('answers 404 for path parameters that name no resource, when the route says so', async () => {
    expect(await get('/items/7')).toEqual({ status: 200, body: { id: 7 } });
    expect(await get('/items/x')).toEqual({
      status: 404,
      body: { error: { code: 'not_found', message: 'Not found.' } },
    });
  });

  it('under test, turns a response that breaks its declaration into a 500', async () => {
    expect((await get('/drifting')).status).toBe(500);
    expect((await get('/undeclared')).status).toBe(500);
  });
});
