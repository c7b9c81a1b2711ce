import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import type { Context, Middleware } from 'koa';
import type { Logger } from './logger';

/** The header that carries one request's id from the gateway through every service and back. */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** Ids we accept from upstream: short, and harmless in a log line or a header. */
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Paths polled by orchestrators and scrapers: logged at debug level only. */
const PROBE_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

export interface RequestState {
  requestId: string;
}

/** The request id the gateway passed (when well-formed), else a fresh one. */
export function requestIdOf(header: string | undefined): string {
  return header && ACCEPTABLE_REQUEST_ID.test(header) ? header : randomUUID();
}

/**
 * Outermost middleware of each service: takes the request id from X-Request-Id (generating one
 * when absent or malformed), echoes it in the response, keeps it in `ctx.state.requestId`, and
 * writes one JSON line per request, with the id as `req_id`. (No child logger per request: it
 * cost a few percent of a hot request's time and nothing logged through it.)
 *
 * The line holds the method, the path without its query string (query strings of /oauth/*
 * carry codes and states), the status, the duration and the client address. Never headers
 * (Authorization, Cookie), never bodies.
 */
export function requestLogging(logger: Logger): Middleware {
  // The line's fields are the six primitives named in writeLine, none of which the redaction
  // paths can match, while pino runs every field of every line through its wildcard paths
  // (`*.token`, …): 4 % of a contact read's time. So request lines skip redaction; every other
  // line of the service keeps it.
  const requestLines = logger.child({}, { redact: [] });
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    const requestId = requestIdOf(ctx.get(REQUEST_ID_HEADER) || undefined);
    ctx.state.requestId = requestId;
    ctx.set(REQUEST_ID_HEADER, requestId);
    try {
      await next();
    } catch (error) {
      // Koa's default error handler drops every header set so far; keep the id on the answer.
      const withHeaders = error as { headers?: Record<string, string>; status?: number };
      if (withHeaders && typeof withHeaders === 'object') {
        withHeaders.headers = { ...withHeaders.headers, [REQUEST_ID_HEADER]: requestId };
      }
      writeLine(
        ctx,
        requestLines,
        requestId,
        started,
        typeof withHeaders?.status === 'number' ? withHeaders.status : 500,
      );
      throw error;
    }
    writeLine(ctx, requestLines, requestId, started, ctx.status);
  };
}

function writeLine(ctx: Context, log: Logger, requestId: string, started: bigint, status: number): void {
  const line = {
    req_id: requestId,
    method: ctx.method,
    path: ctx.path,
    status,
    duration_ms: Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100,
    ip: ctx.ip,
  };
  // A probe's 503 is its answer (not ready), polled every few seconds through an outage: debug too.
  if (PROBE_PATHS.has(ctx.path) && status !== 500) log.debug(line, 'request');
  else if (status >= 500) log.warn(line, 'request failed');
  else log.info(line, 'request');
}

/** Error codes of a client that went away mid-request (the socket, Node's parser, a stream). */
const HANG_UP_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ERR_STREAM_PREMATURE_CLOSE',
  'ECANCELED',
]);

/** Whether an error is the client's going away rather than a fault of the service. */
export function isClientHangUp(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (HANG_UP_CODES.has(code) || code.startsWith('HPE_'))) return true;
  return message === 'aborted' || message === 'request aborted';
}

/**
 * Errors Koa itself is left with (a stream that failed after its answer began, a body the client
 * stopped sending): by default Koa prints them with their stack on stderr, outside the JSON log.
 * Here they are log lines like any other: a client that hung up at debug (it is no fault of the
 * service, and anyone can cause it), an error that says it is the request's own (an `expose`d
 * status below 500: a streamed answer that lost a race with a write) at info with its message,
 * anything else at error with the request's id.
 */
export function logApplicationErrors(app: Koa, logger: Logger): void {
  app.on('error', (error: unknown, ctx?: Context) => {
    const reqId = (ctx?.state as Partial<RequestState> | undefined)?.requestId;
    const where = { req_id: reqId, method: ctx?.method, path: ctx?.path };
    if (isClientHangUp(error)) {
      const code = (error as { code?: unknown }).code;
      logger.debug({ ...where, code: typeof code === 'string' ? code : undefined }, 'client closed the connection');
      return;
    }
    const { status, expose, message } = (error ?? {}) as { status?: unknown; expose?: unknown; message?: unknown };
    if (expose === true && typeof status === 'number' && status < 500 && typeof message === 'string') {
      logger.info({ ...where, status }, message);
      return;
    }
    logger.error({ ...where, err: error }, 'request failed in the framework');
  });
}
