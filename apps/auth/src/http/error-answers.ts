import { STATUS_CODES } from 'node:http';
import type { Context, Next } from 'koa';
import { errorPage } from '../views/error';

/** What a member reads on the page, and a program in `error_description`, for each status. */
const DESCRIPTIONS: Record<number, string> = {
  400: 'The request could not be read.',
  404: 'There is nothing at this address.',
  405: 'This address does not answer this method.',
  413: 'What was sent is larger than this address accepts.',
  415: 'The request body is in a format this address does not read.',
};

/** The OAuth 2.0 error code (RFC 6749 §5.2's shape) a program gets for each status. */
const CODES: Record<number, string> = {
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'request_too_large',
  415: 'unsupported_media_type',
};

interface ClientError {
  status: number;
  message: string;
  expose?: boolean;
  headers?: Record<string, string>;
}

function isClientError(error: unknown): error is ClientError {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status >= 400 && status < 500;
}

/**
 * Client errors nobody answered in a documented shape: Koa's bare 404 and 405 (no page, no
 * provider route, a method the routers don't take) and the 4xx thrown by body parsers (413, 415,
 * 400) would otherwise reach the member or the program as Koa's plain-text status line. A browser
 * (it asks for HTML first) gets a page in the product's layout; everything else the OAuth error
 * object `{"error","error_description"}` the provider's own endpoints answer with. Answers that
 * already have a body (oidc-provider's errors, the pages' own) pass untouched. Runs inside
 * securityHeaders, so the page gets the pages' headers.
 */
export async function errorAnswers(ctx: Context, next: Next) {
  try {
    await next();
  } catch (error) {
    if (!isClientError(error)) throw error;
    ctx.status = error.status;
    ctx.set(error.headers ?? {});
    answer(ctx, error.expose ? error.message : undefined);
    return;
  }
  if (ctx.status >= 400 && ctx.status < 500 && ctx.body == null) answer(ctx);
}

function answer(ctx: Context, detail?: string): void {
  const { status } = ctx;
  const description = detail ?? DESCRIPTIONS[status] ?? STATUS_CODES[status] ?? 'The request was refused.';
  if (ctx.accepts('json', 'html') === 'html') {
    ctx.type = 'html';
    // A member reads the product's words; a body parser's own ("request entity too large") is for programs.
    ctx.body = errorPage(STATUS_CODES[status] ?? 'Error', DESCRIPTIONS[status] ?? description);
  } else {
    ctx.body = { error: CODES[status] ?? 'invalid_request', error_description: description };
  }
  // Koa's 404 is its default, not a status anyone set: giving it a body made it 200.
  ctx.status = status;
}
