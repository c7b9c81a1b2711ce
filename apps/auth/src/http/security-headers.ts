import type { Context, Next } from 'koa';

const HTML = /^\s*text\/html\s*(;|$)/i;

/**
 * Headers for the auth app's HTML pages: no inline script or style, never framed (no
 * clickjacking of the consent page), no referrer leaking codes or states, never stored by a
 * cache, HSTS behind TLS.
 */
export async function securityHeaders(ctx: Context, next: Next) {
  await next();
  // A plain test of the header rather than ctx.response.is('html'), whose media-type parsing
  // showed up in the profile of every JSON answer (introspection, token) for nothing.
  if (!HTML.test(ctx.response.get('Content-Type'))) return;
  ctx.set(
    'Content-Security-Policy',
    "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; frame-ancestors 'none'",
  );
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  // Every page here is one member's (sign-in, consent, settings) and carries a CSRF token: never
  // kept by a shared cache or shown from the back-forward cache of a browser someone else uses.
  if (!ctx.response.get('Cache-Control')) ctx.set('Cache-Control', 'no-store');
  if (ctx.secure) ctx.set('Strict-Transport-Security', 'max-age=31536000');
}
