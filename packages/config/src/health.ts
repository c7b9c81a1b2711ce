import type { Middleware } from 'koa';

/** A readiness check: resolves to a problem description, or undefined when all is well. */
export type ReadinessCheck = () => Promise<string | undefined>;

/**
 * GET /healthz answers as long as the process serves requests; GET /readyz runs every check
 * and answers 503 with the problems when one fails, so a balancer stops sending traffic.
 */
export function healthEndpoints(checks: Record<string, ReadinessCheck>): Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'GET' || (ctx.path !== '/healthz' && ctx.path !== '/readyz')) return next();
    ctx.set('Cache-Control', 'no-store');
    if (ctx.path === '/healthz') {
      ctx.body = { status: 'ok' };
      return;
    }
    const problems: Record<string, string> = {};
    await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        const problem = await check().catch((error: Error) => error.message || 'failed');
        if (problem) problems[name] = problem;
      }),
    );
    const ready = Object.keys(problems).length === 0;
    ctx.status = ready ? 200 : 503;
    ctx.body = ready ? { status: 'ready' } : { status: 'not ready', problems };
  };
}
