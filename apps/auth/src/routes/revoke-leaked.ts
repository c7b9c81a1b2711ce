import type { RateLimit } from '@contacts/config';
import { addressKey, requestBodyAbandoned } from '@contacts/config';
import { sharedRateLimiter } from '@contacts/db';
import Router from '@koa/router';
import type { Context } from 'koa';
import { koaBody } from 'koa-body';
import { answerOtherMethod } from '../http/endpoint-methods';
import { revokeLeakedPersonalTokens } from '../lib/personal-tokens';
import type { AuthServices } from '../services';

/** Requests per IP address per window; a scanner reporting a batch needs one request per 100 values. */
export const REVOKE_LEAKED_RATE_LIMIT: RateLimit = { points: 30, duration: 10 * 60 };
export const MAX_LEAKED_VALUES = 100;
const MAX_VALUE_LENGTH = 4_096;

const jsonOrForm = koaBody({
  json: true,
  urlencoded: true,
  multipart: false,
  text: false,
  jsonLimit: '512kb',
  formLimit: '512kb',
});

const badRequest = (ctx: Context, description: string) => {
  ctx.status = 400;
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error: 'invalid_request', error_description: description };
};

/** The submitted values: JSON `{"tokens":[…]}` or a form with one or more `token` fields. */
function valuesOf(ctx: Context): { values: string[] } | { problem: string } {
  const body = ctx.request.body as unknown;
  const raw = ctx.is('application/json')
    ? body !== null && typeof body === 'object' && !Array.isArray(body)
      ? (body as Record<string, unknown>).tokens
      : undefined
    : body !== null && typeof body === 'object'
      ? (body as Record<string, unknown>).token
      : undefined;
  const list = typeof raw === 'string' && !ctx.is('application/json') ? [raw] : raw;
  if (!Array.isArray(list)) return { problem: 'send {"tokens":[…]} as JSON or one or more token fields as a form' };
  if (list.length < 1 || list.length > MAX_LEAKED_VALUES) {
    return { problem: `send 1 to ${MAX_LEAKED_VALUES} values` };
  }
  if (!list.every((value) => typeof value === 'string' && value.length > 0 && value.length <= MAX_VALUE_LENGTH)) {
    return { problem: `every value must be a non-empty string of at most ${MAX_VALUE_LENGTH} characters` };
  }
  return { values: list as string[] };
}

/**
 * `POST /oauth/revoke-leaked`, without authentication (as GitHub's credential revocation API):
 * whoever finds a personal token in the open can have it revoked. The answer is the same
 * `202 {"received":n}` whatever the values were, so it tells nothing about their validity;
 * the owner of a revoked token finds it in their security log. Rate-limited per IP address (an IPv6 address by its /64: addressKey).
 */
export function revokeLeakedRoutes(services: AuthServices, limit: RateLimit = REVOKE_LEAKED_RATE_LIMIT): Router {
  const { db, audit, logger } = services;
  const limiter = sharedRateLimiter(db, limit, 'revoke_leaked_ip', (message) => logger.warn(message));
  const router = new Router();
  router.post('/oauth/revoke-leaked', async (ctx) => {
    const verdict = limiter.consume(addressKey(ctx.ip));
    if (!verdict.allowed) {
      const reset = verdict.headers['RateLimit-Reset'];
      ctx.set({ ...verdict.headers, 'Retry-After': reset, 'Cache-Control': 'no-store' });
      ctx.status = 429;
      ctx.body = { error: 'rate_limited', error_description: `too many reports; try again in ${reset} s` };
      return;
    }
    ctx.set(verdict.headers);
    if (requestBodyAbandoned(ctx)) return badRequest(ctx, 'the request was closed before its body was read');
    if (!ctx.is('application/json', 'application/x-www-form-urlencoded')) {
      return badRequest(ctx, 'send JSON or an HTML form (application/x-www-form-urlencoded)');
    }
    try {
      await jsonOrForm(ctx, async () => {});
    } catch {
      return badRequest(ctx, 'the body could not be read (malformed or larger than 512 kB)');
    }
    const read = valuesOf(ctx);
    if ('problem' in read) return badRequest(ctx, read.problem);
    const { values } = read;
    const revoked = await revokeLeakedPersonalTokens(db, values);
    for (const token of revoked) {
      await audit('personal_token.reported_leaked', {
        memberId: token.memberId,
        ip: ctx.ip,
        details: { token_id: token.id },
      });
    }
    ctx.status = 202;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { received: values.length };
  });
  // Other methods as at oidc-provider's endpoints beside it.
  router.all('/oauth/revoke-leaked', (ctx) => answerOtherMethod(ctx, ['POST', 'OPTIONS']));
  return router;
}
