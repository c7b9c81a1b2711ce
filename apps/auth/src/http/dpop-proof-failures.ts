import { dpopProofMistake } from '@contacts/config';
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

/**
 * Its `error_description` for every proof jose's jwtVerify refused (validate_dpop.js), whatever
 * jose's reason (kept as the error's `cause`). test/dpop-clients.test.ts pins it to the installed source.
 */
export const DPOP_PROOF_UNVERIFIED_DESCRIPTION = 'invalid DPoP key binding';

interface DpopProofAnswer {
  error: 'invalid_dpop_proof';
  error_description: string;
}

/** The answer for each of the reasons answered invalid_grant, by its error_detail. */
const ANSWERS: ReadonlyMap<string, DpopProofAnswer> = new Map([
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

/** What oidc-provider answered, and what is answered instead. */
interface Rewrite {
  replaces: 'invalid_grant' | 'invalid_dpop_proof';
  answer: DpopProofAnswer;
}

/** The refusal oidc-provider emits with `grant.error` (its errors.js). */
interface ProviderError {
  error?: string;
  error_description?: string;
  error_detail?: string;
  cause?: unknown;
}

function rewriteOf(error: ProviderError): Rewrite | undefined {
  const byDetail = error.error_detail === undefined ? undefined : ANSWERS.get(error.error_detail);
  if (byDetail) return { replaces: 'invalid_grant', answer: byDetail };
  if (error.error !== 'invalid_dpop_proof' || error.error_description !== DPOP_PROOF_UNVERIFIED_DESCRIPTION) {
    return undefined;
  }
  const mistake = dpopProofMistake(error.cause);
  return mistake
    ? { replaces: 'invalid_dpop_proof', answer: { error: 'invalid_dpop_proof', error_description: mistake } }
    : undefined;
}

/**
 * RFC 9449 §5: a token request whose DPoP proof is missing where one is required (§5.2: a
 * client registered with `dpop_bound_access_tokens`) or is invalid is answered
 * `invalid_dpop_proof`, as oidc-provider does for most proof failures. For two it answers a bare
 * `invalid_grant` ("grant request is invalid"; the reason stays in its error_detail, which only its
 * events see): no proof from such a client, and a proof used before. A client library reads
 * invalid_grant on a refresh as "the refresh token is dead" and drops a refresh token that still
 * works, so both get `invalid_dpop_proof`, saying which.
 *
 * And every proof jose refused is "invalid DPoP key binding", which sends a developer looking
 * for a key problem; a proof signed with an algorithm the server does not take (an RSA key) or
 * with a `typ` other than dpop+jwt is told so, in the contacts API's words (dpopProofMistake).
 *
 * The refusal is recognised through the `grant.error` event (emitted while the answer is built,
 * on the request's context, with the error and its cause), and rewritten after `next()`: nothing
 * runs on an answer that is not an error.
 */
export function dpopProofFailures(provider: Provider) {
  const rewrites = new WeakMap<Context, Rewrite>();
  // The event names are oidc-provider's; its type definitions list only some of them.
  const on = provider.on.bind(provider) as (event: string, listener: (...args: never[]) => void) => void;
  on('grant.error', (ctx: KoaContextWithOIDC, error: ProviderError) => {
    const rewrite = rewriteOf(error);
    if (rewrite) rewrites.set(ctx, rewrite);
  });

  return async function answerDpopProofFailures(ctx: Context, next: Next) {
    await next();
    const rewrite = ctx.status === 400 ? rewrites.get(ctx) : undefined;
    if (!rewrite) return;
    const body = ctx.body as { error?: unknown } | undefined;
    if (body?.error === rewrite.replaces) ctx.body = { ...rewrite.answer };
  };
}
