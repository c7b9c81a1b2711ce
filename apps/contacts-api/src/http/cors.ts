import { REQUEST_ID_HEADER } from '@contacts/config';
import cors from '@koa/cors';
import type { Middleware } from 'koa';
import { openApiPaths, type RegisteredRoute } from './openapi-paths';

/**
 * Cross-origin requests from browser apps (CORS), on the API (/v3, /v4) and its OpenAPI document.
 *
 * The API authenticates with the Authorization header alone (Bearer or DPoP tokens), never with
 * cookies or any other credential a browser adds by itself, so a page of another origin can do
 * nothing here that it could not do with a token it already holds: every origin is allowed
 * (`Access-Control-Allow-Origin: *`) and credentials never are (a `*` answer cannot carry them;
 * a request sent with `credentials: 'include'` is refused by the browser). GitHub's API does the
 * same.
 *
 * Preflights (OPTIONS with Access-Control-Request-Method) are answered 204 here, before any
 * token check or rate limit. Every other answer, errors included (401, 403, 404, 405, 429, …),
 * carries Access-Control-Allow-Origin and exposes the headers a client reads, so that a browser app
 * can see why a call failed. Health, readiness and metrics answer no CORS request.
 */

/** Paths browser apps may call from another origin. */
export function isCrossOriginPath(path: string): boolean {
  return path === '/openapi.json' || /^\/v[34](?:\/|$)/.test(path);
}

/** Request headers a client sends beyond the CORS-safelisted ones (besides those the document lists). */
const REQUEST_HEADERS = ['Authorization', 'DPoP', 'Content-Type', 'Content-Encoding', 'If-Match', 'If-None-Match'];

/**
 * Response headers a client needs to read and the API sends without the document naming them on
 * each operation: the challenge (auth/middleware.ts, auth/sender-constraint.ts), the request id
 * (request logging), `Allow` of a 405, the vCard export's file name. (Cache-Control, Content-Type,
 * Content-Length… are readable anyway.)
 */
const RESPONSE_HEADERS = [
  'WWW-Authenticate',
  REQUEST_ID_HEADER,
  'ETag',
  'Location',
  'Link',
  'Retry-After',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'Deprecation',
  'Sunset',
  'Allow',
  'Accept-Encoding',
  'Content-Disposition',
];

/** Response headers every page may read anyway (the Fetch standard's CORS-safelisted ones). */
const SAFELISTED_RESPONSE_HEADERS = new Set([
  'cache-control',
  'content-language',
  'content-length',
  'content-type',
  'expires',
  'last-modified',
  'pragma',
]);

/** A preflight's answer may be reused this long (Chromium's ceiling; Firefox keeps it up to a day). */
export const PREFLIGHT_MAX_AGE_SECONDS = 7_200;

type JsonObject = Record<string, unknown>;

/** The request and response headers the document (`openApiPaths` of these routes) names. */
function documentedHeaders(routes: readonly RegisteredRoute[]): { request: string[]; response: string[] } {
  const request: string[] = [];
  const response: string[] = [];
  for (const item of Object.values(openApiPaths(routes))) {
    for (const operation of Object.values(item) as JsonObject[]) {
      if (typeof operation !== 'object' || operation === null || Array.isArray(operation)) continue;
      for (const parameter of (operation.parameters as JsonObject[] | undefined) ?? []) {
        if (parameter.in === 'header') request.push(String(parameter.name));
      }
      for (const answer of Object.values((operation.responses as Record<string, JsonObject> | undefined) ?? {})) {
        response.push(...Object.keys((answer.headers as JsonObject | undefined) ?? {}));
      }
    }
  }
  return { request, response };
}

/** Header names without repeats (compared case-insensitively), in the first spelling met. */
function distinct(names: readonly string[]): string[] {
  const seen = new Map<string, string>();
  for (const name of names) if (!seen.has(name.toLowerCase())) seen.set(name.toLowerCase(), name);
  return [...seen.values()];
}

export interface ApiCorsOptions {
  /**
   * Headers every answer on a path carries, which the middleware giving the path's other answers
   * (after this one) sets, so that its preflights, answered here, carry them too: v3's
   * deprecation signals (routes/v3 v3HeadersOf). Undefined: none for that path.
   */
  pathHeaders?: (path: string) => Readonly<Record<string, string>> | undefined;
}

/**
 * The CORS middleware for the API whose operations are `routes`: the methods they answer (HEAD
 * with GET), the request headers above plus every header parameter they document, and the
 * response headers above plus every response header they document.
 */
export function apiCors(routes: readonly RegisteredRoute[], options: ApiCorsOptions = {}): Middleware {
  const documented = documentedHeaders(routes);
  const methods = new Set(routes.map((route) => route.method.toUpperCase()));
  if (methods.has('GET')) methods.add('HEAD');
  const handle = cors({
    // Only a CORS request (one with an Origin) gets CORS headers; Vary: Origin is always sent, so
    // that no cache hands an answer without them to a browser app.
    origin: (ctx) => (ctx.get('Origin') ? '*' : ''),
    credentials: false,
    allowMethods: [...methods],
    allowHeaders: distinct([...REQUEST_HEADERS, ...documented.request]),
    exposeHeaders: distinct([...RESPONSE_HEADERS, ...documented.response]).filter(
      (name) => !SAFELISTED_RESPONSE_HEADERS.has(name.toLowerCase()),
    ),
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
  });
  return (ctx, next) => {
    if (!isCrossOriginPath(ctx.path)) return next();
    // A request without Origin is no CORS request: only the Vary header, without going through
    // @koa/cors, whose async wrapper around the rest of the chain cost a same-origin contact read
    // half as much time again (bench scenario 1: 146 against 97 µs of CPU per read).
    if (!ctx.get('Origin')) {
      ctx.vary('Origin');
      return next();
    }
    // A preflight (as @koa/cors tells one) is answered by `handle` without going further.
    if (ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method')) {
      const headers = options.pathHeaders?.(ctx.path);
      if (headers) ctx.set(headers);
    }
    return handle(ctx, next);
  };
}
