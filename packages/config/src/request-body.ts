import type { Context } from 'koa';

/** Whether the request announces a body (a length or a chunked transfer). */
export function hasRequestBody(ctx: Context): boolean {
  return Boolean(ctx.request.length) || Boolean(ctx.get('transfer-encoding'));
}

/**
 * Whether the client closed the connection before the body it announced could be read (while
 * the request waited for the database or a token check, say). Body parsers make a 500 of that
 * ("stream is not readable"); it is the client's doing, and the answer is a 400 nobody reads.
 */
export function requestBodyAbandoned(ctx: Context): boolean {
  return hasRequestBody(ctx) && !ctx.req.readable;
}
