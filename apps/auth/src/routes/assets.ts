import { readFileSync } from 'node:fs';
import type { Context, Next } from 'koa';

const css = readFileSync(new URL('../views/auth.css', import.meta.url));

/** The pages' one stylesheet (a file, so that the CSP needs no 'unsafe-inline'). */
export async function assets(ctx: Context, next: Next) {
  if (ctx.method !== 'GET' || ctx.path !== '/assets/auth.css') return next();
  ctx.type = 'text/css';
  ctx.set('Cache-Control', 'public, max-age=3600');
  ctx.body = css;
}
