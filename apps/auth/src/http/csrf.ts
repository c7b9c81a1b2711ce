import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context, Next } from 'koa';

/**
 * CSRF protection for every form of the auth app's own pages: a random per-browser seed in an
 * HttpOnly cookie, and in each form a token that is the HMAC of that seed under the cookie key.
 * A cross-site page can neither read the seed nor compute the token. Verified against every
 * configured key so that rotating COOKIE_KEYS does not break open forms.
 */
const SEED_COOKIE = 'csrf_seed';

export interface CsrfState {
  csrfToken: string;
  /** Whether the submitted form carries a valid token (see verifyCsrf). */
  csrfValid(submitted: unknown): boolean;
}

export function csrfSeed(keys: string[], secure: boolean) {
  const sign = (key: string, seed: string) => createHmac('sha256', key).update(`csrf:${seed}`).digest('base64url');
  return async function csrf(ctx: Context, next: Next) {
    let seed = ctx.cookies.get(SEED_COOKIE);
    if (!seed) {
      seed = randomBytes(24).toString('base64url');
      ctx.cookies.set(SEED_COOKIE, seed, { httpOnly: true, sameSite: 'lax', secure, overwrite: true });
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
    ctx.type = 'text/plain';
    ctx.body = 'This form has expired or did not come from this site. Go back, reload the page and try again.';
    return;
  }
  await next();
}
