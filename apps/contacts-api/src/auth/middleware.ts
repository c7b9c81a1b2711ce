import type { Logger } from '@contacts/config';
import type { Middleware } from 'koa';
import { bearerOf } from '../http/bearer';
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

export function hasAccess(scopes: readonly string[], access: Access): boolean {
  return scopes.includes('*') || scopes.includes(SCOPE_FOR[access]);
}

const challenge = (error: string, description: string, scope?: string) =>
  `Bearer realm="contacts", error="${error}", error_description="${description}"${scope ? `, scope="${scope}"` : ''}`;

const invalidToken = () =>
  new ApiError(401, 'unauthorized', 'The token is invalid, expired or revoked.', {
    headers: { 'WWW-Authenticate': challenge('invalid_token', 'the token is invalid, expired or revoked') },
  });

/** The caller an introspection describes, or the 401/403 that refuses it. */
function admit(result: Introspection, access: Access): Caller {
  if (!result.active) throw invalidToken();
  if (!hasAccess(result.scopes, access)) {
    throw new ApiError(403, 'insufficient_scope', `This needs the ${SCOPE_FOR[access]} scope.`, {
      headers: {
        'WWW-Authenticate': challenge('insufficient_scope', `requires ${SCOPE_FOR[access]}`, SCOPE_FOR[access]),
      },
    });
  }
  return { memberId: result.memberId, scopes: result.scopes, clientId: result.clientId };
}

async function unavailableAs503<T>(work: () => Promise<T>, logger: Logger): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof AuthServerUnavailable)) throw error;
    logger.error({ err: error }, 'authorization server unavailable');
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
 * 403 insufficient_scope, 503 when the authorization server cannot be asked.
 */
export function requireAccess(
  authenticator: Authenticator,
  access: Access,
  logger: Logger,
  senderConstraint?: SenderConstraint,
): Middleware {
  return async (ctx, next) => {
    // Bearer or DPoP (proof verified), personal-token checksum; before any introspection.
    const presented = senderConstraint ? await senderConstraint.present(ctx) : undefined;
    const bearer = bearerOf(ctx);
    if (!bearer) {
      throw new ApiError(401, 'unauthorized', 'Send a bearer token in the Authorization header.', {
        headers: { 'WWW-Authenticate': challenge('invalid_token', 'missing bearer token') },
      });
    }
    const verdict = await unavailableAs503(() => authenticator.authenticate(bearer), logger);
    // The token's DPoP binding matches how it was presented; the proof's jti is fresh.
    if (presented && senderConstraint) await senderConstraint.bind(presented, verdict.introspection);
    if (access === 'write') {
      // A write acts only on a confirmed answer.
      ctx.state.caller = admit(await unavailableAs503(() => verdict.confirm(), logger), access);
      await next();
      return;
    }
    // A read runs alongside the confirmation and its answer is only sent once that holds.
    const optimistic = admit(verdict.introspection, access);
    ctx.state.caller = optimistic;
    let failure: unknown;
    try {
      await next();
    } catch (error) {
      failure = error;
    }
    const confirmed = admit(await unavailableAs503(() => verdict.confirm(), logger), access);
    if (confirmed.memberId !== optimistic.memberId) throw invalidToken();
    if (failure !== undefined) throw failure;
  };
}
