import { type ErrorEnvelope, type MessageV3, summarizeFieldErrors, type ValidationErrorV3 } from '@contacts/schemas';
import type { Middleware } from 'koa';

/**
 * v3's error bodies are Laravel's. Errors are mapped to statuses once, by the v4 error envelope
 * middleware (http/errors.ts) that runs inside this one, including the authentication
 * middleware's 401/403/503; this middleware only rewrites the envelope it produced:
 * 422 → {"message", "errors"}, 401 → {"message": "Unauthenticated."}, others → {"message"}.
 * Headers set with the error (WWW-Authenticate, Retry-After) are kept.
 */
export function laravelErrorBodies(): Middleware {
  return async (ctx, next) => {
    await next();
    if (ctx.status < 400) return;
    const envelope = isEnvelope(ctx.body) ? ctx.body : undefined;
    if (envelope) {
      ctx.body = laravelBody(envelope.error);
    } else if (ctx.body === undefined || ctx.body === null) {
      // Answers the router gives without a body: 405 (with Allow), and 501 for a method it does not
      // know at all (MKCOL, PROPFIND…), which is the client's mistake: 405 as in v4, never a 5xx.
      if (ctx.status === 501) ctx.status = 405;
      ctx.body = { message: ctx.status === 405 ? 'Method not allowed.' : 'Not implemented.' } satisfies MessageV3;
      ctx.set('Cache-Control', 'no-store');
    }
  };
}

function laravelBody(error: ErrorEnvelope['error']): MessageV3 | ValidationErrorV3 {
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

function isEnvelope(body: unknown): body is ErrorEnvelope {
  const error = (body as { error?: unknown } | null | undefined)?.error;
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string';
}
