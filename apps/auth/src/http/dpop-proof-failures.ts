import type { Context, Next } from 'koa';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';

/**
 * oidc-provider's `error_detail` when a client registered with `dpop_bound_access_tokens` asks
 * the token endpoint without a DPoP proof (lib/helpers/sender_constraints.js, checkDpopRequired).
 * test/dpop-clients.test.ts pins it to the installed source.
 */
export const DPOP_PROOF_MISSING_DETAIL = 'DPoP proof JWT not provided';

/** Its `error_detail` for a proof whose jti it has seen before (lib/helpers/validate_dpop.js). */
export const DPOP_PROOF_REPLAYED_DETAIL = 'DPoP proof JWT Replay detected';

/** The answer for each of those reasons, by its error_detail. */
const ANSWERS: ReadonlyMap<string, { error: 'invalid_dpop_proof'; error_description: string }> = new Map([
  [
    DPOP_PROOF_MISSING_DETAIL,
    {
      error: 'invalid_dpop_proof',
      error_description:
        'a DPoP proof is required: this client is registered with DPoP-bound tokens (dpop_bound_access_tokens), so every token request carries a DPoP header (RFC 9449)',
    },
  ],
  [
    DPOP_PROOF_REPLAYED_DETAIL,
    {
      error: 'invalid_dpop_proof',
      error_description:
        'this DPoP proof was used before (its jti): send a new proof with every request (RFC 9449 §4.2, §11.1)',
    },
  ],
]);

/**
 * RFC 9449 §5: a token request whose DPoP proof is missing where one is required (§5.2: a
 * client registered with `dpop_bound_access_tokens`) or is invalid is answered
 * `invalid_dpop_proof`, as oidc-provider does for most proof failures. For two it answers a bare
 * `invalid_grant` ("grant request is invalid"; the reason stays in its error_detail, which only its
 * events see): no proof from such a client, and a proof used before. A client library reads
 * invalid_grant on a refresh as "the refresh token is dead" and drops a refresh token that still
 * works, so both get `invalid_dpop_proof`, saying which.
 *
 * The refusal is recognised by its error_detail, through the `grant.error` event (emitted while
 * the answer is built, on the request's context), and rewritten after `next()`: nothing runs on
 * an answer that is not an error.
 */
export function dpopProofFailures(provider: Provider) {
  const reasons = new WeakMap<Context, string>();
  // The event names are oidc-provider's; its type definitions list only some of them.
  const on = provider.on.bind(provider) as (event: string, listener: (...args: never[]) => void) => void;
  on('grant.error', (ctx: KoaContextWithOIDC, error: { error_detail?: string }) => {
    if (error.error_detail !== undefined && ANSWERS.has(error.error_detail)) reasons.set(ctx, error.error_detail);
  });

  return async function answerDpopProofFailures(ctx: Context, next: Next) {
    await next();
    const reason = ctx.status === 400 ? reasons.get(ctx) : undefined;
    const answer = reason === undefined ? undefined : ANSWERS.get(reason);
    if (!answer) return;
    const body = ctx.body as { error?: unknown } | undefined;
    if (body?.error === 'invalid_grant') ctx.body = { ...answer };
  };
}
