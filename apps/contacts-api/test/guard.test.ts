import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@contacts/config';
import { Router } from '@koa/router';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { errorEnvelopeOf, errorRenderer } from '../src/http/errors';
import { koaGuard } from '../src/http/guard';

let server: Server;
let baseUrl: string;

beforeAll(async () => {
  const app = new Koa();
  app.use(errorRenderer(createLogger('guard-test', { LOG_LEVEL: 'silent' }), errorEnvelopeOf));
  const router = new Router();
  const sum = koaGuard({
    params: z.object({ a: z.string().regex(/^\d+$/, 'a must be digits.').transform(Number) }),
    query: z.object({ b: z.string().regex(/^\d+$/, 'b must be digits.').transform(Number) }),
    response: z.object({ sum: z.number() }),
    status: 200,
  });
  router.get('/sum/:a', sum.middleware, (ctx) => {
    const { params, query } = sum.of(ctx);
    ctx.body = { sum: params.a + query.b };
  });
  const drifting = koaGuard({ response: z.object({ sum: z.number() }), status: 200 });
  router.get('/drifting', drifting.middleware, (ctx) => {
    ctx.body = { sum: 'three' };
  });
  const undeclared = koaGuard({ status: 200 });
  router.get('/undeclared', undeclared.middleware, (ctx) => {
    ctx.status = 201;
    ctx.body = {};
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

  it('under test, turns a response that breaks its declaration into a 500', async () => {
    expect((await get('/drifting')).status).toBe(500);
    expect((await get('/undeclared')).status).toBe(500);
  });
});
