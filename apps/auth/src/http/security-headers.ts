import type { Context, Next } from 'koa';

const HTML = /^\s*text\/html\s*(;|$)/i;

/**
 * The pages' Content-Security-Policy. `script-src 'none'`: the pages run no script, except the
 * one oidc-provider writes itself on its form_post page (response_mode=form_post), whose hash it
 * adds to script-src when it finds the directive already set (see securityHeaders).
 */
const CSP =
  "default-src 'none'; script-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; frame-ancestors 'none'";

/**
 * Headers for the auth app's HTML pages: no inline script or style (but the hashed script of
 * oidc-provider's form_post page), never framed (no clickjacking of the consent page), no
 * referrer leaking codes or states, never stored by a cache, HSTS behind TLS.
 */
export async function securityHeaders(ctx: Context, next: Next) {
  // Before the answer is made, so that oidc-provider can add its script's hash to it.
  ctx.set('Content-Security-Policy', CSP);
  await next();
  // Every answer, JSON included: a browser takes it as the type it says, never guesses another.
  ctx.set('X-Content-Type-Options', 'nosniff');
  // A plain test of the header rather than ctx.response.is('html'), whose media-type parsing
  // showed up in the profile of every JSON answer (introspection, token) for nothing.
  if (!HTML.test(ctx.response.get('Content-Type'))) {
    ctx.remove('Content-Security-Policy');
    return;
  }
  ctx.set('Content-Security-Policy', withHashedScriptsOnly(ctx.response.get('Content-Security-Policy') || CSP));
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Referrer-Policy', 'no-referrer');
  // Every page here is one member's (sign-in, consent, settings) and carries a CSRF token: never
  // kept by a shared cache or shown from the back-forward cache of a browser someone else uses.
  if (!ctx.response.get('Cache-Control')) ctx.set('Cache-Control', 'no-store');
  if (ctx.secure) ctx.set('Strict-Transport-Security', 'max-age=31536000');
}

/**
 * The policy with `'none'` dropped from script-src once a hash was added beside it ('none' must
 * stand alone); a policy that is not ours (an error page made after the headers were reset)
 * becomes ours.
 */
function withHashedScriptsOnly(policy: string): string {
  const directives = policy.split(';').map((directive) => directive.trim().split(/\s+/));
  const scripts = directives.find(([name]) => name === 'script-src');
  const hashes = scripts?.slice(1).filter((source) => /^'sha256-[A-Za-z0-9+/=]+'$/.test(source)) ?? [];
  if (!policy.startsWith("default-src 'none'") || hashes.length === 0) return CSP;
  return CSP.replace("script-src 'none'", `script-src ${hashes.join(' ')}`);
}
