import { type FieldErrors, validate } from '@contacts/schemas';
import type { Context, Middleware } from 'koa';
import type { z } from 'zod';
import { bodyOf } from './body';
import { ApiError, validationFailed } from './errors';

/**
 * A route's declared contract, in the spirit of Logto's koaGuard: the schemas its path
 * parameters, query and body must satisfy (`body` needs parseBody() before the guard), and what
 * it answers on success (`response`, JSON; `status`). Requests are validated before the handler
 * runs (every problem in one 422, the documented error shape) and the parsed values are kept on
 * `ctx.state.guard`. Responses are checked under NODE_ENV=test, so that a handler cannot drift
 * from its declaration unnoticed (pre-serialised JSON strings are parsed to be checked).
 */
type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface Guarded<P, Q, B> {
  params: Parsed<P>;
  query: Parsed<Q>;
  body: Parsed<B>;
}

export interface Guard<P, Q, B> {
  middleware: Middleware;
  /** The values the guard validated for this request. */
  of(ctx: Context): Guarded<P, Q, B>;
}

const checksResponses = process.env.NODE_ENV === 'test';

export function koaGuard<
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(config: {
  params?: P;
  query?: Q;
  body?: B;
  response?: z.ZodType;
  status?: number | readonly number[];
}): Guard<P, Q, B> {
  const statuses = config.status === undefined ? undefined : ([] as number[]).concat(config.status);
  const middleware: Middleware = async (ctx, next) => {
    const errors: FieldErrors = {};
    const parse = (schema: z.ZodType | undefined, input: unknown): unknown => {
      if (!schema) return undefined;
      const result = validate(schema, input);
      if (result.ok) return result.value;
      Object.assign(errors, result.fields);
      return undefined;
    };
    const guarded = {
      params: parse(config.params, ctx.params),
      query: parse(config.query, ctx.query),
      body: parse(config.body, config.body ? bodyOf(ctx).fields : undefined),
    };
    if (Object.keys(errors).length > 0) throw validationFailed(errors);
    ctx.state.guard = guarded;
    await next();
    if (checksResponses) checkResponse(ctx, config.response, statuses);
  };
  return { middleware, of: (ctx) => ctx.state.guard as Guarded<P, Q, B> };
}

/** Under test: a success that breaks its declaration is a server bug, reported as one. */
function checkResponse(ctx: Context, schema: z.ZodType | undefined, statuses: number[] | undefined): void {
  if (ctx.status >= 300) return;
  if (statuses && !statuses.includes(ctx.status)) {
    throw new ApiError(500, 'internal_error', `Undeclared response status ${ctx.status}.`);
  }
  if (!schema) return;
  const body: unknown = typeof ctx.body === 'string' ? JSON.parse(ctx.body) : ctx.body;
  const result = schema.safeParse(body);
  if (!result.success) {
    throw new ApiError(500, 'internal_error', `Response does not match its declaration: ${result.error.message}`);
  }
}
