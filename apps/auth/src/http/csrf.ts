import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context, Next } from 'koa';
import { cookiesNeededPage, errorPage } from '../views/error';
import { cookieNames } from './cookie-names';

export interface CsrfState {
  csrfToken: string;
  /** Whether the submitted form carries a valid token (see verifyCsrf). */
  csrfValid(submitted: unknown): boolean;
  /**
   * The request came without the seed cookie (a new one was just made): the browser blocks this
   * site's cookies, or dropped them (cleared, or a session cookie after a restart). No token can
   * match then, and the member is told so rather than that the form expired.
   */
  csrfSeedMissing: boolean;
  /** The host the site's cookies are for (PUBLIC_URL's), to name where they must be allowed. */
  cookieHost: string;
}

/**
 * CSRF protection for every form of the auth app's own pages: a random per-browser seed in an
 * HttpOnly cookie, and in each form a token that is the HMAC of that seed under the cookie key.
 * A cross-site page can neither read the seed nor compute the token. Verified against every
 * configured key so that rotating COOKIE_KEYS does not break open forms. Over https the seed's
 * cookie is `__Host-csrf_seed` (see cookie-names.ts), so no other host can fix it. The token has
 * no time limit: it stays valid as long as the browser keeps the seed and a key signs it.
 */
export function csrfSeed(keys: string[], secure: boolean, publicUrl: string) {
  const cookieHost = new URL(publicUrl).host;
  const seedCookie = cookieNames(secure).csrfSeed;
  const sign = (key: string, seed: string) => createHmac('sha256', key).update(`csrf:${seed}`).digest('base64url');
  return async function csrf(ctx: Context, next: Next) {
    const state = ctx.state as CsrfState;
    let seed = ctx.cookies.get(seedCookie);
    state.csrfSeedMissing = !seed;
    state.cookieHost = cookieHost;
    if (!seed) {
      seed = randomBytes(24).toString('base64url');
      ctx.cookies.set(seedCookie, seed, { httpOnly: true, sameSite: 'lax', secure, overwrite: true });
    }
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

/**
 * Refuses a POSTed form without a valid token (403); runs after the form body is parsed. Without
 * the seed cookie the page says that the site needs cookies; with a seed the token does not match
 * when the page was loaded under another seed (the site's cookies were cleared or replaced since,
 * or every key that signed it was retired) or did not come from this site at all.
 */
export async function verifyCsrf(ctx: Context, next: Next) {
  const body = ctx.request.body as Record<string, unknown> | undefined;
  const state = ctx.state as CsrfState;
  if (!state.csrfValid(body?.csrf)) {
    ctx.status = 403;
    ctx.type = 'html';
    ctx.body = state.csrfSeedMissing
      ? cookiesNeededPage(state.cookieHost, 'reload the page and try again.')
      : errorPage(
          'This form is out of date',
          "It was loaded before this browser's cookies for this site were cleared or replaced, or it did not come from a page of this site. Nothing was changed. Go back, reload the page and try again.",
        );
    return;
  }
  await next();
}
