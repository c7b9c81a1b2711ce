import type { Context, Next } from 'koa';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';

/**
 * oidc-provider's `error_detail` when a client registered with `dpop_bound_access_tokens` asks
 * the token endpoint without a DPoP proof (lib/helpers/sender_constraints.js, checkDpopRequired).
 * test/dpop-clients.test.ts pins it to the installed source.
 */
export const DPOP_PROOF_MISSING_DETAIL = 'DPoP proof JWT not provided';

const ANSWER = {
  error: 'invalid_dpop_proof',
  error_description:
    'a DPoP proof is required: this client is registered with DPoP-bound tokens (dpop_bound_access_tokens), so every token request carries a DPoP header (RFC 9449)',
} as const;

/**
 * RFC 9449 §5.2: the server MUST refuse a token request without a DPoP proof from a client
 * registered with `dpop_bound_access_tokens`. oidc-provider does, as a bare `invalid_grant`
 * ("grant request is invalid"; the reason stays in its error_detail, which only its events see),
 * so the client cannot tell that a proof is missing. §5 answers a proof that fails its checks
 * with `invalid_dpop_proof`, as oidc-provider does for every other proof failure; a missing proof
 * gets the same code and says so.
 *
 * The refusal is recognised by its error_detail, through the `grant.error` event (emitted while
 * the answer is built, on the request's context), and rewritten after `next()`: nothing runs on
 * an answer that is not an error.
 */
export function dpopProofRequired(provider: Provider) {
  const missingProof = new WeakSet<Context>();
  // The event names are oidc-provider's; its type definitions list only some of them.
  const on = provider.on.bind(provider) as (event: string, listener: (...args: never[]) => void) => void;
  on('grant.error', (ctx: KoaContextWithOIDC, error: { error_detail?: string }) => {
    if (error.error_detail === DPOP_PROOF_MISSING_DETAIL) missingProof.add(ctx);
  });

  return async function answerMissingDpopProof(ctx: Context, next: Next) {
    await next();
    if (ctx.status !== 400 || !missingProof.has(ctx)) return;
    const body = ctx.body as { error?: unknown } | undefined;
    if (body?.error === 'invalid_grant') ctx.body = { ...ANSWER };
  };
}
