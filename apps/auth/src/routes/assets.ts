import type { Context, Next } from 'koa';
import { STYLESHEET } from '../views/stylesheet';

// A module rather than a file read at start-up: the production bundle carries it with the code.
const css = Buffer.from(STYLESHEET);

/** The pages' one stylesheet (a file, so that the CSP needs no 'unsafe-inline'). */
export async function assets(ctx: Context, next: Next) {
  if (ctx.method !== 'GET' || ctx.path !== '/assets/auth.css') return next();
  ctx.type = 'text/css';
  ctx.set('Cache-Control', 'public, max-age=3600');
  ctx.body = css;
}
