import { Readable } from 'node:stream';
import type { Context } from 'koa';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createLogger,
  createServiceMetrics,
  logApplicationErrors,
  MAX_PATH_ROUTE_LABELS,
  requestLogging,
  routeLabels,
} from '../src/index';

const lines: Array<Record<string, unknown>> = [];
let baseUrl: string;
let close: () => void;
let serviceLogger: ReturnType<typeof createLogger>;
const pool = { numUsed: () => 2, numFree: () => 3, numPendingAcquires: () => 0, numPendingCreates: () => 1 };

beforeAll(async () => {
  const logger = createLogger(
    'test',
    { LOG_LEVEL: 'debug' },
    { write: (line: string) => lines.push(JSON.parse(line)) },
  );
  serviceLogger = logger;
  const app = new Koa({ proxy: true });
  logApplicationErrors(app, logger);
  app.use(requestLogging(logger));
  app.use(createServiceMetrics({ service: 'test', pool: () => pool, processMetrics: false }).middleware);
  app.use(async (ctx) => {
    if (ctx.path === '/boom') ctx.throw(418, 'teapot');
    // An answer whose stream fails after it began: what Koa is left with.
    if (ctx.path === '/hung-up' || ctx.path === '/broken' || ctx.path === '/lost-race') {
      const failure =
        ctx.path === '/lost-race'
          ? Object.assign(new Error('The image was replaced during its transfer.'), { status: 409, expose: true })
          : Object.assign(new Error(ctx.path === '/hung-up' ? 'Premature close' : 'disk on fire'), {
              code: ctx.path === '/hung-up' ? 'ERR_STREAM_PREMATURE_CLOSE' : 'EIO',
            });
      ctx.body = new Readable({
        read() {
          this.push('partial');
          this.destroy(failure);
        },
      });
      return;
    }
    if (ctx.path === '/readyz') {
      ctx.status = 503;
      ctx.body = { status: 'not ready' };
      return;
    }
    if (ctx.path.startsWith('/items/')) {
      (ctx as unknown as { _matchedRoute: string })._matchedRoute = '/items/:id';
    }
    ctx.body = { ok: true };
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  close = () => server.close();
});
afterAll(() => close());

const lineOf = (id: string) => lines.find((line) => line.req_id === id && line.msg === 'request');

describe('request logging', () => {
  it('keeps a well-formed X-Request-Id, echoes it, and logs one line without headers, query or body', async () => {
    const response = await fetch(`${baseUrl}/oauth/callback?code=the-code&state=s`, {
      method: 'POST',
      headers: {
        'x-request-id': 'gateway-id-1',
        authorization: 'Bearer the-token',
        cookie: 'session=the-cookie',
        'x-forwarded-for': '198.51.100.7',
      },
      body: 'password=the-password',
    });
    expect(response.headers.get('x-request-id')).toBe('gateway-id-1');
    expect(lineOf('gateway-id-1')).toMatchObject({
      method: 'POST',
      path: '/oauth/callback',
      status: 200,
      ip: '198.51.100.7',
      duration_ms: expect.any(Number),
    });
    const everything = JSON.stringify(lines);
    for (const secret of ['the-code', 'the-token', 'the-cookie', 'the-password'])
      expect(everything).not.toContain(secret);
  });

  it('logs a probe at debug, its 503 (not ready, polled through an outage) included', async () => {
    await fetch(`${baseUrl}/readyz`, { headers: { 'x-request-id': 'probe-1' } });
    expect(lines.find((line) => line.req_id === 'probe-1')).toMatchObject({ level: 20, status: 503, msg: 'request' });
  });

  it('leaves the redaction of every other line of the service in place', () => {
    serviceLogger.info({ client: { client_secret: 'the-secret' }, grant: { refresh_token: 'the-refresh' } }, 'other');
    const line = lines.find((candidate) => candidate.msg === 'other');
    expect(line).toMatchObject({ client: { client_secret: '[redacted]' }, grant: { refresh_token: '[redacted]' } });
  });

  it('generates an id when there is none or it is unusable, and keeps it on errors', async () => {
    for (const headers of [{}, { 'x-request-id': 'has spaces\tand tabs' }, { 'x-request-id': 'x'.repeat(200) }]) {
      const response = await fetch(`${baseUrl}/boom`, { headers });
      expect(response.status).toBe(418);
      const id = response.headers.get('x-request-id') ?? '';
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(lineOf(id)).toMatchObject({ path: '/boom', status: 418 });
    }
  });
});

describe('metrics', () => {
  it('counts requests by route template and status, times them, and reports the pool', async () => {
    await fetch(`${baseUrl}/items/123`);
    await fetch(`${baseUrl}/items/456`);
    await fetch(`${baseUrl}/things/5/aZ3kq9Lm0pQrStUvWx`);
    const text = await (await fetch(`${baseUrl}/metrics`)).text();
    expect(text).toContain('http_requests_total{method="GET",route="/items/:id",status="200",service="test"} 2');
    expect(text).toContain('http_requests_total{method="GET",route="/things/:id/:id",status="200",service="test"} 1');
    expect(text).toContain('http_requests_total{method="GET",route="/boom",status="418",service="test"}');
    expect(text).toMatch(
      /http_request_duration_seconds_count\{service="test",method="GET",route="\/items\/:id",status="200"\} 2/,
    );
    expect(text).toContain('db_pool_connections_in_use{service="test"} 2');
    expect(text).toContain('db_pool_connections_idle{service="test"} 3');
    expect(text).toContain('db_pool_pending_acquires{service="test"} 0');
    expect(text).toContain('db_pool_pending_creates{service="test"} 1');
  });
});

describe('route labels', () => {
  const request = (path: string, extra: Record<string, unknown> = {}) => ({ path, ...extra }) as unknown as Context;

  it("name the matched routes' template when the router answered for them (405, OPTIONS), not the path", () => {
    const routeOf = routeLabels();
    const layers = [{ path: '/v4/contacts/:id', methods: ['GET', 'HEAD', 'POST'] }];
    expect(routeOf(request('/v4/contacts/zzqq', { matched: layers }), 405)).toBe('/v4/contacts/:id');
    expect(routeOf(request('/v4/contacts/qqzz', { matched: layers }), 200)).toBe('/v4/contacts/:id');
    // A middleware layer (no methods) names no route.
    expect(routeOf(request('/v4/abc', { matched: [{ path: '(.*)', methods: [] }] }), 404)).toBe('(unmatched)');
  });

  it(`take at most ${MAX_PATH_ROUTE_LABELS} labels from paths no router matched, then (other)`, () => {
    const routeOf = routeLabels();
    const labels = new Set<string>();
    for (let index = 0; index < MAX_PATH_ROUTE_LABELS * 3; index++) {
      // Letters only, as a scanner's random segments: nothing in them looks like an id.
      const letters = index.toString(26).replace(/\d/g, (digit) => 'qrstuvwxyz'[Number(digit)] as string);
      labels.add(routeOf(request(`/v4/${letters}/${index}`), 401));
    }
    expect(labels.size).toBe(MAX_PATH_ROUTE_LABELS + 1);
    expect(labels.has('(other)')).toBe(true);
    // Those it took stay theirs.
    expect(routeOf(request('/v4/q/1'), 401)).toBe('/v4/q/:id');
  });
});

describe('errors Koa is left with', () => {
  it("are log lines, not stack traces on stderr: a client hang-up at debug, the request's own at info, anything else at error", async () => {
    const stderr = vi.spyOn(console, 'error');
    for (const path of ['/hung-up', '/broken', '/lost-race']) {
      await fetch(`${baseUrl}${path}`, { headers: { 'x-request-id': `stream${path.replace('/', '-')}` } })
        .then((response) => response.text())
        .catch(() => undefined);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stderr).not.toHaveBeenCalled();
    stderr.mockRestore();
    expect(
      lines.find((line) => line.req_id === 'stream-hung-up' && line.msg === 'client closed the connection'),
    ).toMatchObject({
      level: 20,
      code: 'ERR_STREAM_PREMATURE_CLOSE',
      path: '/hung-up',
    });
    expect(
      lines.find((line) => line.req_id === 'stream-broken' && line.msg === 'request failed in the framework'),
    ).toMatchObject({
      level: 50,
      err: { message: 'disk on fire' },
    });
    // An exposed 4xx (a transfer that lost its race with a write): its message, no error, no stack.
    expect(
      lines.find(
        (line) => line.req_id === 'stream-lost-race' && line.msg === 'The image was replaced during its transfer.',
      ),
    ).toMatchObject({ level: 30, status: 409, path: '/lost-race' });
    expect(lines.some((line) => line.req_id === 'stream-lost-race' && line.level === 50)).toBe(false);
  });
});
