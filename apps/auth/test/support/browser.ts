import type { Page } from 'playwright-core';

export { launchBrowser } from '@contacts/config/testing/browser';

export interface AuthorizeOptions {
  email?: string;
  password?: string;
  decision?: 'allow' | 'deny';
}

/**
 * Walks a member through /oauth/authorize the way a person does: signs in when asked, clicks
 * Allow or Deny when asked, and returns the URL the browser was finally sent to (the
 * application's redirect URI, served by a callback server of the test).
 */
export async function authorizeInBrowser(
  page: Page,
  authorizeUrl: string,
  redirectUri: string,
  options: AuthorizeOptions = {},
) {
  let callback: string | undefined;
  const reachedRedirectUri = () => {
    if (page.url().startsWith(redirectUri)) callback = page.url();
    return callback !== undefined;
  };
  await page.goto(authorizeUrl);
  // Each submit leads to another page (the next interaction, or the redirect URI).
  const submit = async (selector: string) => {
    const before = page.url();
    await Promise.all([page.waitForURL((url) => url.href !== before), page.click(selector)]);
    await page.waitForLoadState('load');
  };
  for (let step = 0; step < 4 && !reachedRedirectUri(); step++) {
    if (await page.locator('input[name="password"]').count()) {
      await page.fill('input[name="email"]', options.email ?? '');
      await page.fill('input[name="password"]', options.password ?? '');
      await submit('button[type="submit"]');
      if (await page.locator('[role="alert"]').count()) break; // sign-in refused
    } else if (await page.locator('button[name="decision"]').count()) {
      await submit(`button[name="decision"][value="${options.decision ?? 'allow'}"]`);
    } else {
      break;
    }
  }
  return { callback: callback ? new URL(callback) : undefined, page };
}
