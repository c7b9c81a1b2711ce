import { type Database, hasPersonalTokenPrefix, isWellFormedPersonalToken, rememberDpopProof } from '@contacts/db';
import type { Context } from 'koa';
import { bearerToken, dpopToken, presentedScheme } from '../http/bearer';
import { type ChallengeError, challengeOf } from '../http/challenge';
import { ApiError } from '../http/errors';
import { DPOP_PROOF_WINDOW_SECONDS, InvalidDpopProof, type VerifiedDpopProof, verifyDpopProof } from './dpop-proof';
import type { Introspection } from './introspection';

/** The access token of a request, how it was presented, and (for DPoP) its verified proof. */
export interface PresentedToken {
  scheme: 'Bearer' | 'DPoP';
  token: string;
  proof?: VerifiedDpopProof;
}

export interface SenderConstraint {
  /**
   * Reads `Authorization` (Bearer or DPoP) and, for DPoP, verifies the `DPoP` proof against this
   * request; refuses a personal token whose checksum is wrong. All before any introspection.
   * Undefined when no token was sent at all.
   */
  present(ctx: Context): Promise<PresentedToken | undefined>;
  /** After introspection: the token's binding (`cnf.jkt`) matches how it was presented, and the proof is fresh. */
  bind(presented: PresentedToken, introspection: Introspection): Promise<void>;
}

/** No token of ours is anywhere near this long; longer values are refused unread. */
const MAX_TOKEN_LENGTH = 4_096;

const dpopChallenge = (error: Exclude<ChallengeError, 'insufficient_scope'>, description: string) =>
  new ApiError(401, 'unauthorized', 'The token or its DPoP proof is invalid.', {
    headers: { 'WWW-Authenticate': challengeOf('DPoP', { error, description }) },
  });

const bearerInvalid = (description: string) =>
  new ApiError(401, 'unauthorized', 'The token is invalid, expired or revoked.', {
    headers: { 'WWW-Authenticate': challengeOf('Bearer', { error: 'invalid_token', description }) },
  });

/**
 * Sender-constrained tokens (RFC 9449 §7) and the personal-token checksum, in front of the
 * bearer check. `publicUrl` is the URL clients address (the service runs behind a proxy): the
 * proof's `htu` is compared with it plus this request's path. Seen proof `jti`s are kept in
 * PostgreSQL (dpop_proofs), so a proof replayed to another replica is refused as well; the
 * janitor deletes them once their window has passed.
 */
export function senderConstraint(db: Database, publicUrl: string): SenderConstraint {
  const base = publicUrl.replace(/\/+$/, '');
  return {
    async present(ctx) {
      const authorization = ctx.get('authorization');
      if (authorization.length > MAX_TOKEN_LENGTH) {
        // Challenged in the scheme it came in (RFC 9449 §7.1).
        if (presentedScheme(authorization) === 'DPoP') throw dpopChallenge('invalid_token', 'the token is too long');
        throw bearerInvalid('the token is too long');
      }
      const presentedDpop = dpopToken(authorization || undefined);
      if (presentedDpop === undefined) {
        const token = bearerToken(authorization || undefined);
        if (token === undefined) return undefined;
        if (hasPersonalTokenPrefix(token) && !isWellFormedPersonalToken(token)) {
          throw bearerInvalid('the token is invalid, expired or revoked');
        }
        return { scheme: 'Bearer', token };
      }
      const proof = ctx.get('dpop');
      if (!proof) throw dpopChallenge('invalid_dpop_proof', 'missing DPoP proof');
      const path = ctx.originalUrl.split(/[?#]/, 1)[0] ?? '/';
      try {
        const verified = await verifyDpopProof(proof, {
          method: ctx.method,
          url: `${base}${path}`,
          accessToken: presentedDpop,
        });
        return { scheme: 'DPoP', token: presentedDpop, proof: verified };
      } catch (error) {
        if (error instanceof InvalidDpopProof) throw dpopChallenge('invalid_dpop_proof', error.message);
        throw error;
      }
    },

    async bind(presented, introspection) {
      const jkt = introspection.active ? introspection.jkt : undefined;
      if (presented.scheme === 'Bearer') {
        // RFC 9449 §7.2: a DPoP-bound token is no bearer token.
        if (jkt !== undefined) throw dpopChallenge('invalid_token', 'this token is DPoP-bound: use the DPoP scheme');
        return;
      }
      if (!introspection.active) throw dpopChallenge('invalid_token', 'the token is invalid, expired or revoked');
      const proof = presented.proof;
      if (jkt === undefined || proof === undefined) throw dpopChallenge('invalid_token', 'the token is not DPoP-bound');
      if (proof.jkt !== jkt) throw dpopChallenge('invalid_dpop_proof', 'the proof is signed by another key');
      const expiresAt = new Date((proof.iat + DPOP_PROOF_WINDOW_SECONDS + 1) * 1000);
      if (!(await rememberDpopProof(db, proof.jkt, proof.jti, expiresAt))) {
        throw dpopChallenge('invalid_dpop_proof', 'the proof was already used');
      }
    },
  };
}
