import { tokenHash } from '@contacts/db';
import type { Context, Middleware } from 'koa';

/** The bearer token of a request and its SHA-256 (the only form in which caches and counters keep it). */
export interface BearerCredentials {
  token: string;
  hash: string;
}

/** The token of an `Authorization: Bearer <token>` header (RFC 6750 §2.1), or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  return match?.[1];
}

/**
 * Reads the Authorization header once per request and keeps the token with its hash on
 * `ctx.state.bearer` (undefined without a bearer token), for authentication and rate limiting.
 */
export function readBearer(): Middleware {
  return async (ctx, next) => {
    const token = bearerToken(ctx.get('authorization') || undefined);
    ctx.state.bearer =
      token === undefined ? undefined : ({ token, hash: tokenHash(token) } satisfies BearerCredentials);
    await next();
  };
}

export function bearerOf(ctx: Context): BearerCredentials | undefined {
  return ctx.state.bearer as BearerCredentials | undefined;
}
