import type { Logger } from '@contacts/config';
import { isConcurrentWriteCollision, isDatabaseUnavailable } from '@contacts/db';
import type { ErrorCode, ErrorEnvelope, FieldErrors } from '@contacts/schemas';
import type { Context, Middleware } from 'koa';
import { DomainError } from '../domain/errors';

/** An error with its HTTP answer: status, envelope code, optional per-field messages and headers. */
export class ApiError extends Error {
  readonly fields: FieldErrors | undefined;
  readonly headers: Record<string, string>;
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    extra: { fields?: FieldErrors; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.fields = extra.fields;
    this.headers = extra.headers ?? {};
  }
}

export const validationFailed = (fields: FieldErrors) =>
  new ApiError(422, 'validation_failed', 'The given data was invalid.', { fields });

const DOMAIN_STATUS: Record<DomainError['kind'], [number, ErrorCode]> = {
  not_found: [404, 'not_found'],
  forbidden: [403, 'forbidden'],
  invalid: [422, 'validation_failed'],
  precondition_failed: [412, 'precondition_failed'],
};

/** Errors thrown by body parsers and Koa itself carry an HTTP status; map the common ones. */
const STATUS_CODES: Record<number, ErrorCode> = {
  400: 'bad_request',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
};

function toApiError(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (error instanceof DomainError) {
    const [status, code] = DOMAIN_STATUS[error.kind];
    return new ApiError(status, code, error.message, error.fields ? { fields: error.fields } : {});
  }
  if (isDatabaseUnavailable(error)) {
    return new ApiError(503, 'service_unavailable', 'The service cannot reach its database; try again shortly.', {
      headers: { 'Retry-After': '5' },
    });
  }
  if (isConcurrentWriteCollision(error)) {
    return new ApiError(
      503,
      'service_unavailable',
      'The request collided with a concurrent change of the same contacts and was undone: nothing was written. Send it again.',
      { headers: { 'Retry-After': '1' } },
    );
  }
  const status = (error as { status?: unknown; statusCode?: unknown } | null)?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const code = STATUS_CODES[status] ?? 'bad_request';
    const message = status === 400 ? 'The request body is malformed.' : ((error as Error).message ?? 'Bad request.');
    return new ApiError(status, code, message);
  }
  return undefined;
}

/** Any thrown value as its HTTP answer; anything unexpected is logged and becomes a 500 that reveals nothing. */
export function apiErrorOf(error: unknown, ctx: Context, logger: Logger): ApiError {
  const apiError = toApiError(error);
  if (apiError) return apiError;
  logger.error({ err: error, method: ctx.method, path: ctx.path }, 'request failed');
  return new ApiError(500, 'internal_error', 'Something went wrong on our side.');
}

/**
 * Turns every failure below it (and a request no route answered) into one API version's error
 * body: `render` gives the body, this sets the status and the error's headers, never cached.
 */
export function errorRenderer(logger: Logger, render: (error: ApiError) => unknown): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new ApiError(404, 'not_found', 'Not found.');
    } catch (error) {
      const apiError = apiErrorOf(error, ctx, logger);
      ctx.status = apiError.status;
      ctx.set({ ...apiError.headers, 'Cache-Control': 'no-store' });
      ctx.body = render(apiError);
    }
  };
}

/** v4's error body: {"error": {code, message, fields?}}. */
export function errorEnvelopeOf(error: ApiError): ErrorEnvelope {
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.fields ? { fields: error.fields } : {}),
    },
  };
}
