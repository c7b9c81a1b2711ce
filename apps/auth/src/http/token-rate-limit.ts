import { hash } from 'node:crypto';
import { addressKey, type Logger, type RateLimit } from '@contacts/config';
import { type Database, type SharedRateLimiter, sharedRateLimiter } from '@contacts/db';
import type { Context, Next } from 'koa';
import type Provider from 'oidc-provider';
import { isTokenRequest, preReadTokenForm } from './token-request-body';

/**
 * The token endpoint's rate limit per client and caller address (the client_id from the Basic
 * header or the body, and the IP address; the address alone when it names no client), decided
 * in memory and shared by every replica through PostgreSQL (or Redis) in batches (see
 * sharedRateLimiter).
 *
 * [security] Per client *and* address, because the count is taken before the provider checks
 * the credentials (a refused request must count too, or guessing would be free), and a client_id
 * is no secret (it is in every authorization URL): counted per client alone, 300 requests a
 * minute with a wrong secret from anywhere kept a client, the API docs' own included, from every
 * code exchange and refresh of all its users. A public client's users each get their own allowance too.
 * A form body is read first to find the client_id (see token-request-body.ts), so the provider
 * parses exactly the same bytes.
 * Answers carry RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset; over the limit:
 * 429 {"error":"rate_limited","error_description"} with Retry-After.
 *
 * [security] And per address over every client_id it names, at ADDRESS_ALLOWANCE_IN_CLIENTS
 * times the limit: the client_id is the caller's choice, so a new made-up one per request had an
 * allowance of its own each time (3,000 requests at ~500 a second, none refused, each a lookup
 * and a counter row).
 *
 * The counter key is `client:` and the SHA-256 of the client_id, never the client_id itself: it
 * is whatever the caller sent, and every key goes to the store in one shared statement, so a
 * single id the store refuses (a NUL, which PostgreSQL text cannot hold; more than the key
 * column's 255 characters) would fail the batch of every client until its window ended. The
 * address is counted by addressKey (an IPv6 address by its /64).
 */
export function tokenRateLimit(provider: Provider, db: Database, limit: RateLimit | undefined, logger: Logger) {
  if (!limit) return (_ctx: Context, next: Next) => next();
  const { perClient: limiter, perAddress } = clientAndAddressLimiters(
    db,
    limit,
    { client: 'token_client', address: 'token_address' },
    logger,
  );
  const isToken = isTokenRequest(provider);

  return async function rateLimitTokenEndpoint(ctx: Context, next: Next) {
    if (!isToken(ctx)) return next();
    const read = await preReadTokenForm(ctx);
    if (!read) return;
    const clientId = clientIdOf(ctx.get('authorization'), read.body);
    const address = addressKey(ctx.ip);
    // A request naming no client is counted by its address in the first limiter; every request,
    // that one included, in the address's allowance over all clients.
    const verdict = limiter.consume(clientId === undefined ? address : clientKey(clientId, address));
    const addressVerdict = perAddress.consume(address);
    const refusal = !verdict.allowed ? verdict : !addressVerdict.allowed ? addressVerdict : undefined;
    if (refusal) {
      const reset = refusal.headers['RateLimit-Reset'];
      ctx.set(refusal.headers);
      const what = refusal === verdict ? 'for this client from this address' : 'from this address';
      return refuseRateLimited(ctx, reset, `too many token requests ${what}; try again in ${reset} s`);
    }
    ctx.set(verdict.headers);
    await next();
  };
}

/** A caller address's token requests, over all the client_ids it names: this many clients' worth. */
export const ADDRESS_ALLOWANCE_IN_CLIENTS = 10;

/**
 * The two counts a limit on requests where clients authenticate keeps: per client and caller
 * address, and per address over every client_id it names (ADDRESS_ALLOWANCE_IN_CLIENTS times the limit).
 */
export function clientAndAddressLimiters(
  db: Database,
  limit: RateLimit,
  keyPrefixes: { client: string; address: string },
  logger: Logger,
): { perClient: SharedRateLimiter; perAddress: SharedRateLimiter } {
  const warn = (message: string) => logger.warn(message);
  return {
    perClient: sharedRateLimiter(db, limit, keyPrefixes.client, warn),
    perAddress: sharedRateLimiter(
      db,
      { ...limit, points: limit.points * ADDRESS_ALLOWANCE_IN_CLIENTS },
      keyPrefixes.address,
      warn,
    ),
  };
}

/** 429 in the OAuth error shape, with Retry-After (`reset` seconds) and no caching. */
export function refuseRateLimited(ctx: Context, reset: string, description: string): void {
  ctx.set({ 'Retry-After': reset, 'Cache-Control': 'no-store' });
  ctx.status = 429;
  ctx.body = { error: 'rate_limited', error_description: description };
}

/**
 * A key the store can always hold, whatever the client_id: `client:`, 43 characters of base64url,
 * and the address's key (at most 46 characters, see addressKey).
 */
export function clientKey(clientId: string, address: string): string {
  return `client:${hash('sha256', clientId, 'base64url')}:${address}`;
}

/** The client_id of HTTP Basic credentials (form-encoded, RFC 6749 §2.3.1), else of the body. */
export function clientIdOf(authorization: string, body: unknown): string | undefined {
  const basic = /^Basic +([A-Za-z0-9+/=]+) *$/i.exec(authorization)?.[1];
  if (basic) {
    const user = Buffer.from(basic, 'base64').toString('utf8').split(':')[0] ?? '';
    try {
      const id = decodeURIComponent(user.replace(/\+/g, ' '));
      if (id) return id;
    } catch {
      // Malformed percent-encoding: the provider refuses it; counted by the body or address.
    }
  }
  let fromBody: unknown;
  if (Buffer.isBuffer(body)) fromBody = new URLSearchParams(body.toString('utf8')).get('client_id');
  else if (body !== null && typeof body === 'object') fromBody = (body as Record<string, unknown>).client_id;
  return typeof fromBody === 'string' && fromBody !== '' ? fromBody : undefined;
}
