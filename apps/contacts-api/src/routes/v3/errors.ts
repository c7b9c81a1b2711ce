import type { Logger } from '@contacts/config';
import { type MessageV3, summarizeFieldErrors, type ValidationErrorV3 } from '@contacts/schemas';
import type { Middleware } from 'koa';
import { type ApiError, errorRenderer } from '../../http/errors';

/**
 * v3's error bodies are Laravel's, rendered straight from the shared error mapping (the same
 * statuses and headers as v4, including the authentication middleware's 401/403/503):
 * 422 → {"message", "errors"}, 401 → {"message": "Unauthenticated."}, others → {"message"}.
 */
export function laravelErrorBodies(logger: Logger): Middleware {
  const render = errorRenderer(logger, laravelBody);
  return async (ctx, next) => {
    await render(ctx, next);
    if (ctx.status >= 400 && (ctx.body === undefined || ctx.body === null)) {
      // The router's own answer, without a body: 405 (with Allow).
      ctx.body = { message: 'Method not allowed.' } satisfies MessageV3;
      ctx.set('Cache-Control', 'no-store');
    }
  };
}

function laravelBody(error: ApiError): MessageV3 | ValidationErrorV3 {
  switch (error.code) {
    case 'validation_failed': {
      const fields = error.fields ?? {};
      return {
        message: Object.keys(fields).length > 0 ? summarizeFieldErrors(fields) : error.message,
        errors: fields,
      };
    }
    case 'unauthorized':
      return { message: 'Unauthenticated.' };
    case 'internal_error':
      return { message: 'Server Error.' };
    default:
      return { message: error.message };
  }
}
