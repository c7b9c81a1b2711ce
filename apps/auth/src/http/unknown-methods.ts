import type { Context, Next } from 'koa';

/**
 * The page routers answer a method they do not know at all (PROPFIND, MKCOL…) with 501, a
 * server error; it is the client's mistake, so it becomes 405 (the routers' Allow header stays).
 */
export async function unknownMethods(ctx: Context, next: Next) {
  await next();
  if (ctx.status === 501) ctx.status = 405;
}
