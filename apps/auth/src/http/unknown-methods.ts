import { settleUnknownMethod } from '@contacts/config';
import type { Context, Next } from 'koa';

/**
 * The page routers answer a method they do not know at all (PROPFIND, MKCOL…) with 501, a server
 * error, at any address: 405 where a page has the path (the routers' Allow header stays), 404
 * where nothing does (errorAnswers, outside, renders both).
 */
export async function unknownMethods(ctx: Context, next: Next) {
  await next();
  settleUnknownMethod(ctx);
}
