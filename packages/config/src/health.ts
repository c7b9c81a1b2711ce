import type { Middleware } from 'koa';
import { withTimeout } from './deadline';

/** How long /readyz waits for each check: its answer comes within this, under the images' 3 s probe timeout. */
export const READINESS_CHECK_TIMEOUT_MS = 2_000;

/** A readiness check: resolves to a problem description, or undefined when all is well. */
export type ReadinessCheck = () => Promise<string | undefined>;

/** What GET /healthz answers: alive, and which service is (so a caller can tell it reached the right one). */
export interface HealthAnswer {
  status: 'ok';
  service: string;
}

/**
 * GET (or HEAD) /healthz answers as long as the process serves requests, naming the service; GET /readyz
 * runs every check and answers 503 with the problems when one fails, so a balancer stops
 * sending traffic.
 */
export function healthEndpoints(service: string, checks: Record<string, ReadinessCheck>): Middleware {
  const alive: HealthAnswer = { status: 'ok', service };
  return async (ctx, next) => {
    // HEAD as GET (Koa drops the body): a balancer or uptime check that probes with HEAD must not read 404.
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || (ctx.path !== '/healthz' && ctx.path !== '/readyz'))
      return next();
    ctx.set('Cache-Control', 'no-store');
    if (ctx.path === '/healthz') {
      ctx.body = alive;
      return;
    }
    const problems: Record<string, string> = {};
    await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        // A database that stops answering without closing its connections would otherwise hold the
        // probe for the pool's 10 s acquire timeout, past any orchestrator's probe timeout (3 s).
        const problem = await withTimeout(check(), READINESS_CHECK_TIMEOUT_MS).catch(
          (error: Error) => error.message || 'failed',
        );
        if (problem) problems[name] = problem;
      }),
    );
    const ready = Object.keys(problems).length === 0;
    ctx.status = ready ? 200 : 503;
    ctx.body = ready ? { status: 'ready' } : { status: 'not ready', problems };
  };
}
