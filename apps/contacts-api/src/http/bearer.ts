import { tokenHash } from '@contacts/db';
import type { Context, Middleware } from 'koa';
import type { TokenScheme } from './challenge';

/**
 * The access token of a request (sent as `Bearer` or `DPoP`) and its SHA-256 (the only form in
 * which caches and counters keep it). Whether a DPoP token's proof holds is checked by the
 * sender constraint; this only names the token.
 */
export interface BearerCredentials {
  token: string;
  hash: string;
  /** The scheme it was sent with (the scheme of the challenges that refuse it). */
  scheme: TokenScheme;
}

/**
 * The scheme an `Authorization` header names when it is one the API takes (Bearer or DPoP,
 * case-insensitive as every auth-scheme), whether or not a well-formed token follows; undefined
 * without the header or for another scheme (Basic…), that is a request with no authentication
 * information the API understands.
 */
export function presentedScheme(header: string | undefined): TokenScheme | undefined {
  const scheme = header ? /^(Bearer|DPoP)(?: |$)/i.exec(header)?.[1]?.toLowerCase() : undefined;
  if (scheme === 'bearer') return 'Bearer';
  return scheme === 'dpop' ? 'DPoP' : undefined;
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
    const bearer = bearerToken(header);
    const dpop = bearer === undefined ? dpopToken(header) : undefined;
    const token = bearer ?? dpop;
    ctx.state.bearer =
      token === undefined
        ? undefined
        : ({
            token,
            hash: tokenHash(token),
            scheme: bearer === undefined ? 'DPoP' : 'Bearer',
          } satisfies BearerCredentials);
    await next();
  };
}

export function bearerOf(ctx: Context): BearerCredentials | undefined {
  return ctx.state.bearer as BearerCredentials | undefined;
}
