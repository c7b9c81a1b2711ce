import type { Middleware } from 'koa';

/**
 * `X-Content-Type-Options: nosniff` on every answer (JSON, vCard, errors): a browser shown one
 * of them takes it as the type it says, never as HTML or script guessed from the bytes, which
 * hold whatever members typed into their contacts.
 */
export const noSniff: Middleware = (ctx, next) => {
  ctx.set('X-Content-Type-Options', 'nosniff');
  return next();
};
