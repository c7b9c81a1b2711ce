import { tokenHash } from '@contacts/db';
import type { Context, Middleware } from 'koa';

/**
 * The access token of a request (sent as `Bearer` or `DPoP`) and its SHA-256 (the only form in
 * which caches and counters keep it). Whether a DPoP token's proof holds is checked by the
 * sender constraint; this only names the token.
 */
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

/** The token of an `Authorization: DPoP <token>` header (RFC 9449 §7.1), or undefined. */
export function dpopToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  return /^DPoP +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header)?.[1];
}

/**
 * Reads the Authorization header once per request and keeps the token with its hash on
 * `ctx.state.bearer` (undefined without a token), for authentication and rate limiting.
 */
export function readBearer(): Middleware {
  return async (ctx, next) => {
    const header = ctx.get('authorization') || undefined;
    const token = bearerToken(header) ?? dpopToken(header);
    ctx.state.bearer =
      token === undefined ? undefined : ({ token, hash: tokenHash(token) } satisfies BearerCredentials);
    await next();
  };
}

export function bearerOf(ctx: Context): BearerCredentials | undefined {
  return ctx.state.bearer as BearerCredentials | undefined;
}
