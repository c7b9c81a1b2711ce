import type { HttpBrowser } from './http-browser';

export interface AuthorizeOutcome {
  /** The code the client's redirect carried, when the flow got that far. */
  code: string | undefined;
  /** Whether the flow stopped at the sign-in page. */
  signInPage: boolean;
  /** The member the consent page asked as (its "(email)"), when one was shown. */
  consentFor: string | undefined;
}

/**
 * Follows `authorizePath` (an /oauth/authorize request) as a browser does, allowing the consent
 * page when it comes: where the flow ends (the client's redirect with a code, or the sign-in
 * page), and as whom it asked.
 */
export async function authorizeWithHttpBrowser(
  browser: HttpBrowser,
  baseUrl: string,
  authorizePath: string,
  redirectUri: string,
): Promise<AuthorizeOutcome> {
  let path = authorizePath;
  let consentFor: string | undefined;
  for (let step = 0; step < 10; step++) {
    const answer = await browser.get(path);
    if (answer.status === 303 || answer.status === 302) {
      const location = new URL(answer.location as string, baseUrl);
      if (location.href.startsWith(redirectUri)) {
        return { code: location.searchParams.get('code') ?? undefined, signInPage: false, consentFor };
      }
      path = location.pathname + location.search;
      continue;
    }
    if (answer.html.includes('name="password"')) return { code: undefined, signInPage: true, consentFor };
    const confirm = /action="(\/interaction\/[^"]+\/confirm)"/.exec(answer.html)?.[1];
    if (!confirm) throw new Error(`unexpected page ${answer.status}: ${answer.html.slice(0, 200)}`);
    consentFor = /\(([^()]+@[^()]+)\)/.exec(answer.html)?.[1];
    const allowed = new URL((await browser.submit(path, confirm, { decision: 'allow' })).location as string, baseUrl);
    path = allowed.pathname + allowed.search;
  }
  throw new Error('authorization did not end');
}
