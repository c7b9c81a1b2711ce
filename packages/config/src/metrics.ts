import type { Context, Middleware } from 'koa';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Prometheus metrics of one service process, in a registry of its own (several apps can live
 * in one process, as in `pnpm start` and the tests). Scraped per replica at GET /metrics, which
 * the gateway does not publish.
 */
export interface ServiceMetrics {
  registry: Registry;
  /** Records every request (by route template and status) and answers GET /metrics. */
  middleware: Middleware;
}

/** The parts of a knex (tarn) pool the gauges read. */
export interface PoolLike {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  numPendingCreates(): number;
}

export interface ServiceMetricsOptions {
  service: string;
  /** The database pool to report on; undefined while the pool does not exist. */
  pool?: () => PoolLike | undefined;
  /** Process metrics (CPU, memory, event loop lag, GC); off in tests that build many apps. */
  processMetrics?: boolean;
}

export function createServiceMetrics(options: ServiceMetricsOptions): ServiceMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service: options.service });
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });

  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route template and status.',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method, route template and status.',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  if (options.pool) databasePoolMetrics(registry, options.pool);

  const middleware: Middleware = async (ctx, next) => {
    if (ctx.method === 'GET' && ctx.path === '/metrics') {
      ctx.set('Content-Type', registry.contentType);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = await registry.metrics();
      return;
    }
    const stop = duration.startTimer();
    let status = 500;
    try {
      await next();
      status = ctx.status;
    } catch (error) {
      const thrown = (error as { status?: unknown } | null)?.status;
      status = typeof thrown === 'number' ? thrown : 500;
      throw error;
    } finally {
      const labels = { method: ctx.method, route: routeOf(ctx, status), status: String(status) };
      requests.inc(labels);
      stop(labels);
    }
  };
  return { registry, middleware };
}

/** Gauges read from the knex pool at scrape time. */
export function databasePoolMetrics(registry: Registry, pool: () => PoolLike | undefined): void {
  const read = (measure: (pool: PoolLike) => number) =>
    function (this: Gauge) {
      const current = pool();
      this.set(current ? measure(current) : 0);
    };
  new Gauge({
    name: 'db_pool_connections_in_use',
    help: 'Database connections lent out to queries.',
    registers: [registry],
    collect: read((p) => p.numUsed()),
  });
  new Gauge({
    name: 'db_pool_connections_idle',
    help: 'Open database connections waiting in the pool.',
    registers: [registry],
    collect: read((p) => p.numFree()),
  });
  new Gauge({
    name: 'db_pool_pending_acquires',
    help: 'Queries waiting for a connection (pool exhausted when this stays above 0).',
    registers: [registry],
    collect: read((p) => p.numPendingAcquires()),
  });
  new Gauge({
    name: 'db_pool_pending_creates',
    help: 'Database connections being opened.',
    registers: [registry],
    collect: read((p) => p.numPendingCreates()),
  });
}

/**
 * A low-cardinality route label: the router's template when a route matched
 * (`/v4/contacts/:id`; oidc-provider's routes set it too); otherwise the path with id-like segments
 * (all digits, or long with a digit) replaced by `:id`; `(unmatched)` for 404s, so that
 * scanners probing random paths cannot grow the metric without bound.
 */
export function routeOf(ctx: Context, status: number): string {
  const matched = (ctx as Context & { _matchedRoute?: unknown })._matchedRoute;
  if (typeof matched === 'string') return matched;
  if (status === 404) return '(unmatched)';
  return ctx.path
    .split('/')
    .map((segment) =>
      /^\d+$/.test(segment) || (/^[A-Za-z0-9_-]{16,}$/.test(segment) && /\d/.test(segment)) ? ':id' : segment,
    )
    .join('/');
}
