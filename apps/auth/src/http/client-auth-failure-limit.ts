import { addressKey, type Logger, type RateLimit } from '@contacts/config';
import type { Database } from '@contacts/db';
import type { Context, Next } from 'koa';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { clientAndAddressLimiters, clientIdOf, clientKey, refuseRateLimited } from './token-rate-limit';
import { preReadTokenForm } from './token-request-body';

/** The endpoints besides the token endpoint where a client proves its secret. */
const LIMITED_ROUTES = ['introspection', 'revocation'] as const;

/**
 * [security] Failed client authentications at the introspection and revocation endpoints, per
 * client and caller address, and per address over every client_id it names (ten times as many),
 * with the token endpoint's limit (TOKEN_RATE_LIMIT per TOKEN_RATE_LIMIT_WINDOW seconds). The
 * token endpoint counts every request, a refused one included, or guessing a client's secret
 * there would cost nothing; these two counted nothing, and answered 320 wrong secrets a few
 * seconds apart with 320 × 401. Only failures count here: the contacts API introspects every
 * token it has not seen with its own credentials, thousands of times a second at full load, and
 * a successful request is no guess.
 *
 * The verdict is taken before the provider checks the credentials, as it must be (a refusal that
 * only replaced the 401s would still let the right secret through with its 200): past the limit,
 * a client and address get 429 with Retry-After, the right secret included, until the window
 * ends. Someone else's failures cannot use up a client's allowance from another address.
 */
export function clientAuthFailureLimit(provider: Provider, db: Database, limit: RateLimit | undefined, logger: Logger) {
  if (!limit) return (_ctx: Context, next: Next) => next();
  const { perClient, perAddress } = clientAndAddressLimiters(
    db,
    limit,
    { client: 'client_auth_failure', address: 'client_auth_failure_address' },
    logger,
  );
  const paths = new Set(LIMITED_ROUTES.map((route) => provider.pathFor(route)));

  return async function limitFailedClientAuthentication(ctx: Context, next: Next) {
    if (ctx.method !== 'POST' || !paths.has(ctx.path)) return next();
    // The client_id of a Basic header needs no body; one sent in the form does (read once, for the provider too).
    let clientId = clientIdOf(ctx.get('authorization'), undefined);
    if (clientId === undefined) {
      const read = await preReadTokenForm(ctx);
      if (!read) return;
      clientId = clientIdOf('', read.body);
    }
    const address = addressKey(ctx.ip);
    const key = clientId === undefined ? address : clientKey(clientId, address);
    const verdict = perClient.check(key);
    const addressVerdict = perAddress.check(address);
    const refusal = !verdict.allowed ? verdict : !addressVerdict.allowed ? addressVerdict : undefined;
    if (refusal) {
      const reset = refusal.headers['RateLimit-Reset'];
      const what = refusal === verdict ? 'for this client from this address' : 'from this address';
      return refuseRateLimited(ctx, reset, `too many failed client authentications ${what}; try again in ${reset} s`);
    }
    await next();
    const route = (ctx as Partial<KoaContextWithOIDC>).oidc?.route;
    const failed = ctx.status === 401 && (ctx.body as { error?: unknown } | undefined)?.error === 'invalid_client';
    if (failed && route !== undefined && (LIMITED_ROUTES as readonly string[]).includes(route)) {
      perClient.consume(key);
      perAddress.consume(address);
    }
  };
}
