import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context, Next } from 'koa';
import { errorPage } from '../views/error';
import { cookieNames } from './cookie-names';

export interface CsrfState {
  csrfToken: string;
  /** Whether the submitted form carries a valid token (see verifyCsrf). */
  csrfValid(submitted: unknown): boolean;
}

/**
 * CSRF protection for every form of the auth app's own pages: a random per-browser seed in an
 * HttpOnly cookie, and in each form a token that is the HMAC of that seed under the cookie key.
 * A cross-site page can neither read the seed nor compute the token. Verified against every
 * configured key so that rotating COOKIE_KEYS does not break open forms. Over https the seed's
 * cookie is `__Host-csrf_seed` (see cookie-names.ts), so no other host can fix it.
 */
export function csrfSeed(keys: string[], secure: boolean) {
  const seedCookie = cookieNames(secure).csrfSeed;
  const sign = (key: string, seed: string) => createHmac('sha256', key).update(`csrf:${seed}`).digest('base64url');
  return async function csrf(ctx: Context, next: Next) {
    let seed = ctx.cookies.get(seedCookie);
    if (!seed) {
      seed = randomBytes(24).toString('base64url');
      ctx.cookies.set(seedCookie, seed, { httpOnly: true, sameSite: 'lax', secure, overwrite: true });
    }
    const state = ctx.state as CsrfState;
    state.csrfToken = sign(keys[0] as string, seed);
    state.csrfValid = (submitted) => {
      const sent = Buffer.from(typeof submitted === 'string' ? submitted : '');
      return keys.some((key) => {
        const expected = Buffer.from(sign(key, seed as string));
        return sent.length === expected.length && timingSafeEqual(sent, expected);
      });
    };
    await next();
  };
}

/** Refuses a POSTed form without a valid token (403); runs after the form body is parsed. */
export async function verifyCsrf(ctx: Context, next: Next) {
  const body = ctx.request.body as Record<string, unknown> | undefined;
  if (!(ctx.state as CsrfState).csrfValid(body?.csrf)) {
    ctx.status = 403;
    ctx.type = 'html';
    ctx.body = errorPage(
      'This form has expired',
      'It was open too long, or it did not come from this site. Go back, reload the page and try again.',
    );
    return;
  }
  await next();
}
