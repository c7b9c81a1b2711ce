import type { Middleware } from 'koa';
import { ApiError } from './errors';

/**
 * At most `max` requests of a kind run at once in this process; one more is answered 503 with
 * Retry-After at once (nothing done), rather than queued: for work that holds a database
 * connection and memory for long (a vCard import is one transaction of up to MAX_IMPORT_CARDS
 * savepoints), where a few at once took every pooled connection from every other member.
 */
export function concurrencyGate(max: number, what: string): Middleware {
  let running = 0;
  return async (_ctx, next) => {
    if (running >= max) {
      throw new ApiError(
        503,
        'service_unavailable',
        `This server is already running ${max} ${what} at once; send the request again in a few seconds.`,
        { headers: { 'Retry-After': '5' } },
      );
    }
    running += 1;
    try {
      await next();
    } finally {
      running -= 1;
    }
  };
}
