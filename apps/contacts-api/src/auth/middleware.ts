import { scopesGrant } from '@contacts/schemas';
import type { Middleware } from 'koa';
import { bearerOf, presentedScheme } from '../http/bearer';
import { challengeOf, type TokenScheme } from '../http/challenge';
import { ApiError } from '../http/errors';
import type { Authenticator } from './authenticator';
import { AuthServerUnavailable, type Introspection } from './introspection';
import type { SenderConstraint } from './sender-constraint';

/** Who is calling, as the route handlers see it. */
export interface Caller {
  memberId: number;
  scopes: string[];
  clientId: string | undefined;
}

export type Access = 'read' | 'write';

const SCOPE_FOR: Record<Access, string> = { read: 'contacts:read', write: 'contacts:write' };

/** The access checks of the routes, by the scope each requires (see withRequiredScope). */
const requiredScopes = new WeakMap<Middleware, string>();

/**
 * Marks the middleware that checks a route's token as requiring `access`'s scope, so that the
 * routes' registry can hold each route's declared scope (its guard, which the OpenAPI document
 * shows) to the one actually checked: written twice, the two could otherwise drift apart unseen.
 */
export function withRequiredScope(middleware: Middleware, access: Access): Middleware {
  requiredScopes.set(middleware, SCOPE_FOR[access]);
  return middleware;
}

/** The scope `middleware` requires when it is a route's access check (withRequiredScope). */
export function scopeRequiredBy(middleware: unknown): string | undefined {
  return typeof middleware === 'function' ? requiredScopes.get(middleware as Middleware) : undefined;
}

export function hasAccess(scopes: readonly string[], access: Access): boolean {
  return scopesGrant(scopes, SCOPE_FOR[access]);
}

const invalidTokenRefusals = new WeakSet<ApiError>();

const invalidToken = (scheme: TokenScheme, description = 'the token is invalid, expired or revoked') => {
  const refusal = new ApiError(401, 'unauthorized', 'The token is invalid, expired or revoked.', {
    headers: { 'WWW-Authenticate': challengeOf(scheme, { error: 'invalid_token', description }) },
  });
  invalidTokenRefusals.add(refusal);
  return refusal;
};

/** Whether `error` is requireAccess refusing a token that is malformed, unknown, expired or revoked. */
export function isInvalidTokenRefusal(error: unknown): boolean {
  return error instanceof ApiError && invalidTokenRefusals.has(error);
}

/**
 * No token the API can read: without authentication information (no Authorization header, or
 * another scheme such as Basic) the bare challenge (RFC 6750 §3.1: no error code); a Bearer or
 * DPoP credential that is no well-formed token is an invalid token, challenged in its scheme.
 */
function noToken(authorization: string | undefined): ApiError {
  const scheme = presentedScheme(authorization);
  if (scheme) return invalidToken(scheme, 'the token is malformed');
  return new ApiError(401, 'unauthorized', 'Send a bearer token in the Authorization header.', {
    headers: { 'WWW-Authenticate': challengeOf('Bearer') },
  });
}

/** The caller an introspection describes, or the 401/403 (challenged in `scheme`) that refuses it. */
function admit(result: Introspection, access: Access, scheme: TokenScheme): Caller {
  if (!result.active) throw invalidToken(scheme);
  if (!hasAccess(result.scopes, access)) {
    const scope = SCOPE_FOR[access];
    throw new ApiError(403, 'insufficient_scope', `This needs the ${scope} scope.`, {
      headers: {
        'WWW-Authenticate': challengeOf(scheme, {
          error: 'insufficient_scope',
          description: `requires ${scope}`,
          scope,
        }),
      },
    });
  }
  return { memberId: result.memberId, scopes: result.scopes, clientId: result.clientId };
}

async function unavailableAs503<T>(work: () => Promise<T>, report: (error: Error) => void): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof AuthServerUnavailable)) throw error;
    report(error);
    throw new ApiError(
      503,
      'authorization_server_unavailable',
      'The authorization server cannot be reached to check your token; try again shortly.',
      { headers: { 'Retry-After': '5' } },
    );
  }
}

/**
 * Requires a valid bearer token (read by readBearer) with the scope for `access` (RFC 6750): 401 invalid_token,
 * 403 insufficient_scope, 503 when the authorization server cannot be asked. Challenges are in the scheme the
 * token came in (`DPoP` for a DPoP request, RFC 9449 §7.1); a request without a token gets a bare `Bearer` one.
 */
export function requireAccess(
  authenticator: Authenticator,
  access: Access,
  /** Told of each request refused because the authorization server cannot be asked (outageReport). */
  reportOutage: (error: Error) => void,
  senderConstraint?: SenderConstraint,
): Middleware {
  return async (ctx, next) => {
    // Bearer or DPoP (proof verified), personal-token checksum; before any introspection.
    const presented = senderConstraint ? await senderConstraint.present(ctx) : undefined;
    const bearer = bearerOf(ctx);
    if (!bearer) throw noToken(ctx.get('authorization') || undefined);
    const { scheme } = bearer;
    const verdict = await unavailableAs503(() => authenticator.authenticate(bearer), reportOutage);
    // The token's DPoP binding matches how it was presented; the proof's jti is fresh.
    if (presented && senderConstraint) await senderConstraint.bind(presented, verdict.introspection);
    if (access === 'write') {
      // A write acts only on a confirmed answer.
      ctx.state.caller = admit(await unavailableAs503(() => verdict.confirm(), reportOutage), access, scheme);
      await next();
      return;
    }
    // A read runs alongside the confirmation and its answer is only sent once that holds.
    const optimistic = admit(verdict.introspection, access, scheme);
    ctx.state.caller = optimistic;
    let failure: unknown;
    try {
      await next();
    } catch (error) {
      failure = error;
    }
    const confirmed = admit(await unavailableAs503(() => verdict.confirm(), reportOutage), access, scheme);
    if (confirmed.memberId !== optimistic.memberId) throw invalidToken(scheme);
    if (failure !== undefined) throw failure;
  };
}
