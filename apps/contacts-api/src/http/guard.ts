import { Readable } from 'node:stream';
import { type ContactScope, type FieldErrors, validate } from '@contacts/schemas';
import type { Context, Middleware } from 'koa';
import type { z } from 'zod';
import { checksResponseContracts } from '../config';
import { bodyOf } from './body';
import { ApiError, validationFailed } from './errors';

/**
 * A route's declared contract, in the spirit of Logto's koaGuard: the schemas its path
 * parameters, query and body must satisfy (`body` needs parseBody() before the guard), what it
 * answers per status, the scope it needs, and how the API documentation names it. Requests are
 * validated before the handler runs (every problem in one 422, the documented error shape) and
 * the parsed values are kept on `ctx.state.guard`. Responses are checked under NODE_ENV=test, so
 * that a handler cannot drift from its declaration unnoticed (pre-serialised JSON strings are
 * parsed to be checked). The OpenAPI document's paths are generated from these declarations
 * (http/openapi-paths.ts), found on the routers' layers through contractOf().
 */
type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;
type JsonObject = Record<string, unknown>;

export interface Guarded<P, Q, B> {
  params: Parsed<P>;
  query: Parsed<Q>;
  body: Parsed<B>;
}

/** One documented answer: a JSON body (zod, output side), or other media types as OpenAPI schemas. */
export interface ResponseContract {
  description: string;
  schema?: z.ZodType;
  content?: Record<string, { schema: JsonObject }>;
  headers?: Record<string, JsonObject>;
}

export interface RouteContract<P, Q, B> {
  operationId: string;
  summary: string;
  description?: string;
  /** The scope a token needs (the route's `read`/`write` middleware enforces it; `*` always works). */
  scope: ContactScope;
  params?: P;
  /** Path parameters that fail their schema name no resource: 404 rather than 422. */
  paramsNotFound?: boolean;
  query?: Q;
  /** A JSON or form body, validated here and documented as JSON and URL-encoded. */
  body?: B;
  /**
   * A body the guard does not parse (multipart with files, text/vcard), documented only: by media
   * type, a zod schema (input side) or an OpenAPI schema. Replaces the `body` documentation.
   */
  requestBody?: Record<string, z.ZodType | JsonObject>;
  /** Request headers the route reads, as OpenAPI parameter objects. */
  headers?: JsonObject[];
  /** Every answer the route gives itself, by status (authentication errors are added by the document). */
  responses: Record<number, ResponseContract>;
}

export interface Guard<P, Q, B> {
  middleware: Middleware;
  /** The values the guard validated for this request. */
  of(ctx: Context): Guarded<P, Q, B>;
}

// biome-ignore lint/suspicious/noExplicitAny: a registry of contracts of every parameter type
type AnyContract = RouteContract<any, any, any>;
const contracts = new WeakMap<Middleware, AnyContract>();

/** The contract a guard middleware enforces, if `middleware` is one. */
export function contractOf(middleware: unknown): AnyContract | undefined {
  return typeof middleware === 'function' ? contracts.get(middleware as Middleware) : undefined;
}

const checksResponses = checksResponseContracts(process.env);

export function koaGuard<
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(contract: RouteContract<P, Q, B>): Guard<P, Q, B> {
  const middleware: Middleware = async (ctx, next) => {
    const errors: FieldErrors = {};
    const parse = (schema: z.ZodType | undefined, input: unknown): unknown => {
      if (!schema) return undefined;
      const result = validate(schema, input);
      if (result.ok) return result.value;
      Object.assign(errors, result.fields);
      return undefined;
    };
    const params = parse(contract.params, ctx.params);
    if (contract.paramsNotFound && Object.keys(errors).length > 0) {
      throw new ApiError(404, 'not_found', 'Not found.');
    }
    const guarded = {
      params,
      query: parse(contract.query, ctx.query),
      body: parse(contract.body, contract.body ? bodyOf(ctx).fields : undefined),
    };
    if (Object.keys(errors).length > 0) throw validationFailed(errors);
    ctx.state.guard = guarded;
    await next();
    if (checksResponses) await checkResponse(ctx, contract.responses);
  };
  contracts.set(middleware, contract);
  return { middleware, of: (ctx) => ctx.state.guard as Guarded<P, Q, B> };
}

async function textOf(stream: Readable): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += String(chunk);
  return text;
}

/**
 * Under test: a success that breaks its declaration is a server bug, reported as one. A JSON body
 * sent as it is read (sendJsonPages) is read whole here, and sent as that text.
 */
async function checkResponse(ctx: Context, responses: Record<number, ResponseContract>): Promise<void> {
  if (ctx.status >= 300) return;
  const declared = responses[ctx.status];
  if (!declared) throw new ApiError(500, 'internal_error', `Undeclared response status ${ctx.status}.`);
  if (!declared.schema) return;
  if (ctx.body instanceof Readable) ctx.body = await textOf(ctx.body);
  const body: unknown = typeof ctx.body === 'string' ? JSON.parse(ctx.body) : ctx.body;
  const result = declared.schema.safeParse(body);
  if (!result.success) {
    throw new ApiError(500, 'internal_error', `Response does not match its declaration: ${result.error.message}`);
  }
}
