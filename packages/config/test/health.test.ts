import Koa from 'koa';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { healthEndpoints, janitorMetrics, READINESS_CHECK_TIMEOUT_MS } from '../src/index';

/**
 * A database that stops answering without closing its connections (a hung server, a stalled
 * network path) must not hold the probes: /readyz answers 503 within its deadline, under the
 * images' 3 s probe timeout, and a metrics scrape answers without the table sizes.
 */
const never = () => new Promise<never>(() => {});

let baseUrl: string;
let close: () => void;
beforeAll(async () => {
  const app = new Koa();
  app.use(healthEndpoints('test', { database: never, other: async () => undefined }));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  close = () => server.close();
});
afterAll(() => close());

describe('probes while the database does not answer', () => {
  it('/readyz answers 503 naming the check that did not answer, within its deadline', async () => {
    const started = performance.now();
    const response = await fetch(`${baseUrl}/readyz`);
    const waited = performance.now() - started;
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      status: 'not ready',
      problems: { database: `no answer within ${READINESS_CHECK_TIMEOUT_MS} ms` },
    });
    expect(waited).toBeGreaterThanOrEqual(READINESS_CHECK_TIMEOUT_MS - 50);
    expect(waited).toBeLessThan(3_000);
  });

  it('a metrics scrape answers without waiting for the table sizes', async () => {
    const registry = new Registry();
    janitorMetrics(registry, { kinds: ['oidc_models'], onPass: () => {}, tableRows: never });
    const started = performance.now();
    const text = await registry.metrics();
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(text).toContain('janitor_rows_deleted_total{kind="oidc_models"} 0');
  });
});
