import type { Context, Middleware } from 'koa';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { withTimeout } from './deadline';

/** How long a scrape waits for the table sizes: well within Prometheus's default 10 s scrape timeout. */
const TABLE_ROWS_TIMEOUT_MS = 1_000;

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
  const routeOf = routeLabels();

  const middleware: Middleware = async (ctx, next) => {
    if ((ctx.method === 'GET' || ctx.method === 'HEAD') && ctx.path === '/metrics') {
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
 * How many route labels a process takes from request paths themselves (requests no router
 * matched that were not 404: answered before routing, such as a 401 or a CORS preflight);
 * further paths share the label `(other)`.
 */
export const MAX_PATH_ROUTE_LABELS = 200;

/**
 * A low-cardinality route label, so that scanners probing random paths cannot grow the metric
 * (and every scrape) without bound:
 * - the router's template when a route answered (`/v4/contacts/:id`; oidc-provider's router sets
 *   it too);
 * - the template of the routes whose path matched when the router answered for them (405, or
 *   OPTIONS with Allow: `ctx.matched`), not the path, which the caller chose;
 * - `(unmatched)` for other 404s;
 * - otherwise the path with id-like segments (all digits, or long with a digit) replaced by `:id`,
 *   for at most MAX_PATH_ROUTE_LABELS distinct labels per process, then `(other)`.
 */
export function routeLabels(maxPathLabels = MAX_PATH_ROUTE_LABELS): (ctx: Context, status: number) => string {
  const fromPaths = new Set<string>();
  return (ctx, status) => {
    const matched = (ctx as Context & { _matchedRoute?: unknown })._matchedRoute;
    if (typeof matched === 'string') return matched;
    const layers = (ctx as Context & { matched?: Array<{ path?: unknown; methods?: unknown[] }> }).matched ?? [];
    const template = layers.find((layer) => (layer.methods?.length ?? 0) > 0 && typeof layer.path === 'string')?.path;
    if (typeof template === 'string') return template;
    if (status === 404) return '(unmatched)';
    const label = ctx.path
      .split('/')
      .map((segment) =>
        /^\d+$/.test(segment) || (/^[A-Za-z0-9_-]{16,}$/.test(segment) && /\d/.test(segment)) ? ':id' : segment,
      )
      .join('/');
    if (fromPaths.has(label)) return label;
    if (fromPaths.size >= maxPathLabels) return '(other)';
    fromPaths.add(label);
    return label;
  };
}

/** What the janitor metrics read: passes of this process, and the size of the growing tables. */
export interface JanitorMetricsSource {
  /** Rule names, so that every counter exists (at 0) before the first pass. */
  kinds: readonly string[];
  onPass(listener: (pass: { outcome: 'ran' | 'skipped' | 'failed'; deleted: Record<string, number> }) => void): void;
  /** Estimated rows per table, cheap enough to read on every scrape. */
  tableRows(): Promise<Record<string, number>>;
}

/**
 * `janitor_rows_deleted_total{kind}` and `janitor_passes_total{outcome}` count this process's
 * janitor passes (sum them over replicas: only the replica holding the lock deletes);
 * `db_table_rows_estimated{table}` is read from PostgreSQL's statistics at scrape time.
 */
export function janitorMetrics(registry: Registry, source: JanitorMetricsSource): void {
  const deleted = new Counter({
    name: 'janitor_rows_deleted_total',
    help: 'Rows the janitor deleted in this process, by rule.',
    labelNames: ['kind'],
    registers: [registry],
  });
  const passes = new Counter({
    name: 'janitor_passes_total',
    help: 'Janitor passes of this process: ran, skipped (another replica held the lock) or failed.',
    labelNames: ['outcome'],
    registers: [registry],
  });
  for (const kind of source.kinds) deleted.inc({ kind }, 0);
  for (const outcome of ['ran', 'skipped', 'failed']) passes.inc({ outcome }, 0);
  source.onPass((pass) => {
    passes.inc({ outcome: pass.outcome });
    for (const [kind, rows] of Object.entries(pass.deleted)) deleted.inc({ kind }, rows);
  });
  new Gauge({
    name: 'db_table_rows_estimated',
    help: "Rows in each table that grows with traffic (PostgreSQL's live-tuple estimate).",
    labelNames: ['table'],
    registers: [registry],
    async collect() {
      try {
        const sizes = await withTimeout(source.tableRows(), TABLE_ROWS_TIMEOUT_MS);
        for (const [table, rows] of Object.entries(sizes)) this.set({ table }, rows);
      } catch {
        // The database is down or not answering: the scrape still answers, in time, with the last known sizes.
      }
    },
  });
}
