import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { registerMember } from '@contacts/auth';
import { API_DOCS_CLIENT_ID, apiDocsRedirectUri } from '@contacts/config';
import { launchBrowser } from '@contacts/config/testing/browser';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CombinedStack, startCombinedStack } from './support/combined-stack';
import { aContact } from './support/factories';

const SCREENSHOTS = '/tmp/contacts-docs-oauth';

/** Signs in and approves in the authorization popup, as a member does, until the popup closes. */
async function signInAndApprove(popup: Page, member: { email: string; password: string }): Promise<string[]> {
  const seen: string[] = [];
  await popup.waitForLoadState('load');
  for (let step = 0; step < 4 && !popup.isClosed(); step++) {
    if (await popup.locator('input[name="password"]').count()) {
      seen.push('sign-in');
      await popup.fill('input[name="email"]', member.email);
      await popup.fill('input[name="password"]', member.password);
      await Promise.all([popup.waitForNavigation(), popup.click('button[type="submit"]')]);
    } else if (await popup.locator('button[name="decision"]').count()) {
      seen.push(`consent: ${await popup.locator('h1').innerText()}`);
      await popup.screenshot({ path: `${SCREENSHOTS}-consent.png`, fullPage: true });
      // The callback page hands the code to /docs and closes the popup.
      await Promise.all([popup.waitForEvent('close'), popup.click('button[name="decision"][value="allow"]')]);
    } else {
      throw new Error(`unexpected page in the authorization popup: ${popup.url()}`);
    }
  }
  return seen;
}

describe('the API docs page (Swagger UI) signs in with OAuth', () => {
  let stack: CombinedStack;
  let browser: Browser;

  beforeAll(async () => {
    [stack, browser] = await Promise.all([startCombinedStack(), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  it('completes the authorization code flow with PKCE, then GET /v4/contacts answers 200 with the member’s contacts', async () => {
    const password = 'docs-page-password-7f3k';
    const member = await registerMember(stack.db, { email: 'docs-reader@example.test', name: 'Docs Reader', password });
    await aContact(stack.db, member, { name: 'Ada Lovelace' });
    await aContact(stack.db, member, { name: 'Grace Hopper' });

    const page = await browser.newPage();
    const authorizeRequests: URL[] = [];
    const tokenRequests: string[] = [];
    page.context().on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname === '/oauth/authorize') authorizeRequests.push(url);
      if (url.pathname === '/oauth/token') tokenRequests.push(request.postData() ?? '');
    });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(message.text());
    });

    await page.goto(`${stack.baseUrl}/docs`);
    await page.locator('.btn.authorize').first().click();
    const oauthSection = page.locator('.auth-container').filter({ hasText: 'authorizationCode with PKCE' });
    await expect.poll(() => oauthSection.locator('input[data-name="clientId"]').inputValue()).toBe(API_DOCS_CLIENT_ID);
    // contacts:read is ticked by the page's configuration; nothing more is asked for.
    await expect.poll(() => oauthSection.locator('input[data-value="contacts:read"]').isChecked()).toBe(true);
    expect(await oauthSection.locator('input[data-value="contacts:write"]').isChecked()).toBe(false);
    await page.screenshot({ path: `${SCREENSHOTS}-authorize-dialog.png`, fullPage: true });

    const [popup] = await Promise.all([
      page.waitForEvent('popup'),
      oauthSection.locator('button.modal-btn.authorize').click(),
    ]);
    const steps = await signInAndApprove(popup, { email: member.email, password });
    expect(steps).toEqual(['sign-in', 'consent: Authorize API documentation (Swagger UI)']);

    // PKCE (S256) as a public client, back to the docs' own callback page.
    const authorize = authorizeRequests[0];
    expect(authorize?.searchParams.get('client_id')).toBe(API_DOCS_CLIENT_ID);
    expect(authorize?.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize?.searchParams.get('redirect_uri')).toBe(apiDocsRedirectUri(stack.baseUrl));
    expect(authorize?.searchParams.get('scope')).toBe('contacts:read');
    await expect.poll(() => tokenRequests.length).toBe(1);
    expect(new URLSearchParams(tokenRequests[0]).get('code_verifier')).toMatch(/^[\w-]{43,128}$/);

    // Authorized: the dialog now offers to log out of the OAuth scheme.
    await expect.poll(() => oauthSection.getByRole('button', { name: 'Remove authorization' }).count()).toBe(1);
    await page.screenshot({ path: `${SCREENSHOTS}-authorized.png`, fullPage: true });
    await page.locator('.modal-ux .close-modal').click();

    const operation = page.locator('.opblock-get').filter({
      has: page.locator('.opblock-summary-path', { hasText: /^\/v4\/contacts$/ }),
    });
    await operation.locator('.opblock-summary').first().click();
    await operation.locator('button.try-out__btn').click();
    await operation.locator('button.execute').click();
    const live = operation.locator('.live-responses-table');
    await expect
      .poll(() => live.locator('tr.response .response-col_status').first().innerText(), { timeout: 10_000 })
      .toBe('200');
    const body = await live.locator('.response-col_description .microlight').first().innerText();
    const names = (JSON.parse(body) as { data: Array<{ name: string }> }).data.map((contact) => contact.name);
    expect(names.sort()).toEqual(['Ada Lovelace', 'Grace Hopper']);
    await operation.screenshot({ path: `${SCREENSHOTS}-response.png` });
    expect(pageErrors).toEqual([]);

    // The member finds the (owner-less, built-in) docs client among their authorized apps.
    await page.goto(`${stack.baseUrl}/settings/authorized-apps`);
    const rows = await page
      .locator('table tbody tr')
      .evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent?.trim())));
    // Its access in the consent page's words for contacts:read.
    expect(rows.map((cells) => cells.slice(0, 2))).toEqual([
      ['API documentation (Swagger UI)', 'See your contacts, your groups and the business categories'],
    ]);
  });

  it('has no WCAG 2.1 A or AA violation (axe-core), and its Authorize dialog explains DPoP instead of an error', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    try {
      await page.goto(`${stack.baseUrl}/docs`);
      await page.locator('.opblock').first().waitFor();
      // Evaluated through the DevTools protocol: the page's CSP (no inline scripts) does not apply.
      await page.evaluate(await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8'));
      const violations = await page.evaluate(async () => {
        const { axe } = window as unknown as {
          axe: {
            run(
              context: Document,
              options: object,
            ): Promise<{ violations: Array<{ id: string; nodes: Array<{ target: unknown }> }> }>;
          };
        };
        const result = await axe.run(document, {
          runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
        });
        return result.violations.map((violation) => ({
          id: violation.id,
          targets: violation.nodes.map((node) => node.target),
        }));
      });
      expect(violations).toEqual([]);

      await page.locator('.btn.authorize').first().click();
      const dialog = page.locator('.modal-ux');
      await expect.poll(() => dialog.innerText()).toContain('DPoP');
      expect(await dialog.innerText()).not.toContain('unsupported scheme');
      await page.screenshot({ path: `${SCREENSHOTS}-dpop-in-dialog.png`, fullPage: true });
    } finally {
      await page.close();
    }
  });

  it('serves the OAuth callback page and the settings script under a CSP without inline scripts', async () => {
    const init = await fetch(`${stack.baseUrl}/docs/init.js`);
    expect(init.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const script = await init.text();
    expect(script).toContain(`"oauth2RedirectUrl":"${apiDocsRedirectUri(stack.baseUrl)}"`);
    expect(script).toContain(`"clientId":"${API_DOCS_CLIENT_ID}","usePkceWithAuthorizationCodeGrant":true`);

    const callback = await fetch(apiDocsRedirectUri(stack.baseUrl));
    expect(callback.status).toBe(200);
    expect(callback.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = callback.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    // Its one script is a file of its own, allowed by that policy.
    expect(await callback.text()).toContain('<script src="oauth2-redirect.js"></script>');
    expect((await fetch(`${stack.baseUrl}/docs/oauth2-redirect.js`)).status).toBe(200);
  });
});
