import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningAuthServer, startAuthServer } from './support/auth-server';
import { authorizeInBrowser, launchBrowser } from './support/browser';
import { type CallbackServer, startCallbackServer } from './support/callback-server';
import { aMember, type TestMember } from './support/factories';
import { authorizeUrl, discover, introspectAsApi, tokenRequest } from './support/oauth-client';

let server: RunningAuthServer;
let browser: Browser;
let page: Page;
let member: TestMember;
let callbacks: CallbackServer;

beforeAll(async () => {
  server = await startAuthServer();
  browser = await launchBrowser();
  callbacks = await startCallbackServer();
  member = await aMember(server.database.db, { name: 'Grace Hopper' });
  page = await (await browser.newContext()).newPage();
});
afterAll(async () => {
  await browser?.close();
  await callbacks?.close();
  await server?.stop();
});

async function submit(selector: string) {
  await Promise.all([
    page.waitForLoadState('load'),
    page.waitForResponse((r) => r.request().method() === 'POST'),
    page.click(selector),
  ]);
  await page.waitForLoadState('load');
}

/** A change that cannot be undone: its link on the list, then the confirmation page's button. */
async function confirmVia(link: string, confirmLabel: string) {
  const list = new URL(page.url()).pathname;
  await Promise.all([page.waitForURL((url) => url.pathname !== list), page.click(link)]);
  expect(await page.locator('main a.button', { hasText: 'Cancel' }).count()).toBe(1);
  await submit(`main button:has-text("${confirmLabel}")`);
}

describe('developer settings in the browser', () => {
  it('sends a signed-out member to the sign-in page, and back after signing in', async () => {
    await page.goto(`${server.baseUrl}/settings/tokens`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.fill('input[name="email"]', member.email);
    await page.fill('input[name="password"]', member.password);
    await submit('button[type="submit"]');
    expect(new URL(page.url()).pathname).toBe('/settings/tokens');
    expect(await page.locator('h1').innerText()).toBe('Personal access tokens');
  });

  it('registers an application, shows its secret once, and the secret works at the token endpoint', async () => {
    await page.goto(`${server.baseUrl}/settings/applications`);
    await page.fill('#app-name', 'Card index');
    await page.fill('#redirect-uris', callbacks.redirectUri);
    await submit('button:has-text("Register application")');
    const clientId = await page.locator('#revealed-client-id').innerText();
    const secret = await page.locator('#revealed-secret').innerText();
    expect(secret.length).toBeGreaterThan(30);

    await page.goto(`${server.baseUrl}/settings/applications`);
    expect(await page.content()).not.toContain(secret);
    expect(await page.locator('code.client-id').allInnerTexts()).toContain(clientId);

    const as = await discover(server.baseUrl);
    const app = { client_id: clientId, client_secret: secret, redirect_uri: callbacks.redirectUri };
    const { callback } = await authorizeInBrowser(page, authorizeUrl(as, app), app.redirect_uri, {});
    const exchange = await tokenRequest(as, {
      grant_type: 'authorization_code',
      client_id: clientId,
      client_secret: secret,
      redirect_uri: app.redirect_uri,
      code: callback?.searchParams.get('code') as string,
    });
    expect(exchange.status).toBe(200);
    const accessToken = exchange.body.access_token as string;
    expect(await introspectAsApi(server, accessToken)).toMatchObject({ active: true, sub: String(member.id) });

    // The approval is listed under Authorized apps; revoking it kills the token at once.
    await page.goto(`${server.baseUrl}/settings/authorized-apps`);
    expect(await page.locator('main').innerText()).toContain('Card index');
    // What it may do in the consent page's words, not the scope's name (`*`).
    expect(await page.locator('td[data-label="Access"]').innerText()).toBe(
      'Full access to your contacts: see, create, change and delete them',
    );
    // The security log names the application, with its client_id (names need not be unique).
    await page.goto(`${server.baseUrl}/settings/security`);
    const authorized = page.locator('tr', { hasText: 'Authorized an application' });
    expect(await authorized.locator('td[data-label="Application"]').innerText()).toBe(`Card index (${clientId})`);
    await page.goto(`${server.baseUrl}/settings/authorized-apps`);
    await confirmVia('a[aria-label="Revoke access of Card index"]', 'Revoke access');
    expect(page.url()).toBe(`${server.baseUrl}/settings/authorized-apps?notice=revoked`);
    expect(await page.locator('[role="status"]').innerText()).toContain("The application's access was revoked");
    expect(await page.locator('main').innerText()).toContain('You have not authorized any application.');
    expect(await introspectAsApi(server, accessToken)).toEqual({ active: false });

    // Rotating the secret: the old one stops working.
    await page.goto(`${server.baseUrl}/settings/applications`);
    await confirmVia('a[aria-label="Rotate secret of Card index"]', 'Rotate secret');
    const rotated = await page.locator('#revealed-secret').innerText();
    expect(rotated).not.toBe(secret);
    const withOld = await tokenRequest(as, {
      grant_type: 'refresh_token',
      refresh_token: 'x',
      client_id: clientId,
      client_secret: secret,
    });
    expect(withOld.body.error).toBe('invalid_client');

    // Reloading the answer posts the form again: it rotates nothing, the new secret keeps working.
    await page.reload();
    expect(page.url()).toBe(`${server.baseUrl}/settings/applications?notice=already_rotated`);
    expect(await page.locator('[role="status"]').innerText()).toBe(
      'This secret was already rotated; the new one was shown once — rotate again to get another.',
    );
    expect(await page.content()).not.toContain(rotated);
    const withRotated = await tokenRequest(as, {
      grant_type: 'refresh_token',
      refresh_token: 'x',
      client_id: clientId,
      client_secret: rotated,
    });
    expect(withRotated.body.error).toBe('invalid_grant');

    // Deleting the application; reloading then shows the page again, deletes nothing more.
    await page.goto(`${server.baseUrl}/settings/applications`);
    await confirmVia('a[aria-label="Delete Card index"]', 'Delete application');
    expect(page.url()).toBe(`${server.baseUrl}/settings/applications?notice=deleted`);
    expect(await page.locator('[role="status"]').innerText()).toContain('The application was deleted');
    expect(await page.locator('main').innerText()).toContain('No applications yet.');
    await page.reload();
    expect(await page.locator('[role="alert"]').count()).toBe(0);
    // Deleted, it is still named in the security log: its deletion recorded the name.
    await page.goto(`${server.baseUrl}/settings/security`);
    const deleted = page.locator('tr', { hasText: 'Deleted an application' });
    expect(await deleted.locator('td[data-label="Application"]').innerText()).toBe(`Card index (${clientId})`);
  });

  it('refuses a redirect URI that is not https nor local, with the reason', async () => {
    await page.goto(`${server.baseUrl}/settings/applications`);
    await page.fill('#app-name', 'Insecure');
    await page.fill('#redirect-uris', 'http://example.com/callback');
    await submit('button:has-text("Register application")');
    expect(await page.locator('[role="alert"]').innerText()).toContain('must use https');
  });

  it('creates a personal access token shown once, lists it, and revokes it', async () => {
    await page.goto(`${server.baseUrl}/settings/tokens`);
    await page.fill('#token-name', 'backup script');
    await page.check('input[name="scopes"][value="contacts:write"]');
    await page.fill('#token-days', '30');
    await submit('button:has-text("Create token")');
    const token = await page.locator('#revealed-secret').innerText();
    // Reloading the answer posts the form again: no second token, and this one is not shown again.
    await page.reload();
    expect(page.url()).toBe(`${server.baseUrl}/settings/tokens?notice=already_created`);
    expect(await page.locator('[role="status"]').innerText()).toContain('This form already created its token');
    expect(await page.locator('#revealed-secret').count()).toBe(0);
    expect(await page.locator('tr', { hasText: 'backup script' }).count()).toBe(1);
    const introspected = await introspectAsApi(server, token);
    expect(introspected).toMatchObject({
      active: true,
      sub: String(member.id),
      scope: 'contacts:read contacts:write',
      personal_access_token: true,
    });
    const days = ((introspected.exp as number) - (introspected.iat as number)) / 86400;
    expect(days).toBe(30);

    await page.goto(`${server.baseUrl}/settings/tokens`);
    const row = page.locator('tr', { hasText: 'backup script' });
    expect(await row.innerText()).toContain('contacts:read contacts:write');
    await confirmVia('a[aria-label="Revoke backup script"]', 'Revoke token');
    expect(page.url()).toBe(`${server.baseUrl}/settings/tokens?notice=revoked`);
    expect(await page.locator('[role="status"]').innerText()).toContain('The token was revoked');
    expect(await page.locator('tr', { hasText: 'backup script' }).innerText()).toContain('Revoked');
    expect(await introspectAsApi(server, token)).toEqual({ active: false });
    // The security log says which token each event is about, by its name.
    await page.goto(`${server.baseUrl}/settings/security`);
    const what = await page.locator('td[data-label="What"]').allInnerTexts();
    expect(what).toContain('Created a personal access token: “backup script”');
    expect(what).toContain('Revoked a personal access token: “backup script”');
  });

  it('never issues a personal token for longer than 60 days', async () => {
    await page.goto(`${server.baseUrl}/settings/tokens`);
    await page.fill('#token-name', 'too long');
    await page.locator('#token-days').evaluate((input: HTMLInputElement) => input.removeAttribute('max'));
    await page.fill('#token-days', '61');
    await submit('button:has-text("Create token")');
    expect(await page.locator('[role="alert"]').innerText()).toContain('from 1 to 60');
    expect(await page.locator('#revealed-secret').count()).toBe(0);
  });

  it('refuses a settings form posted from elsewhere (no CSRF token)', async () => {
    const cookies = await page.context().cookies();
    const response = await fetch(`${server.baseUrl}/settings/tokens`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie: cookies.map((cookie) => `${cookie.name}=${cookie.value}`).join('; '),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ name: 'forged', scopes: '*' }),
    });
    expect(response.status).toBe(403);
    expect(await server.database.db('personal_access_tokens').where({ name: 'forged' }).first()).toBeUndefined();
  });

  it('answers a form naming an id beyond any of ours (PostgreSQL integer) as no such item, not a server error', async () => {
    await page.goto(`${server.baseUrl}/settings/tokens`);
    const csrf = await page.locator('input[name="csrf"]').first().getAttribute('value');
    for (const path of ['/settings/tokens/2147483648/revoke', '/settings/tokens/9007199254740991/revoke']) {
      const response = await page.request.post(`${server.baseUrl}${path}`, { form: { csrf: csrf ?? '' } });
      expect(response.status(), path).toBeLessThan(500);
      expect(await response.text()).toContain('No such token.');
    }
  });

  it('refuses names with a NUL character (PostgreSQL text cannot hold one) as bad input', async () => {
    for (const [path, fields] of [
      ['/settings/tokens', { name: 'night\u0000ly', scopes: 'contacts:read', days: '30' }],
      ['/settings/applications', { name: 'App\u0000', redirect_uris: 'https://app.example/callback' }],
    ] as const) {
      await page.goto(`${server.baseUrl}${path}`);
      const hidden = async (name: string) =>
        (await page.locator(`form[action="${path}"] input[name="${name}"]`).getAttribute('value')) ?? '';
      const form = { csrf: await hidden('csrf'), form_id: await hidden('form_id'), ...fields };
      const response = await page.request.post(`${server.baseUrl}${path}`, { form });
      expect(response.status(), path).toBeGreaterThanOrEqual(400);
      expect(response.status(), path).toBeLessThan(500);
      expect(await response.text()).toContain('must not contain NUL characters');
    }
  });

  it('brings a form sent after the session ended back to its page after signing in, not to a 405', async () => {
    const token = await server.auth.personalTokens.create(member.id, { name: 'kept', scopes: ['contacts:read'] });
    await page.goto(`${server.baseUrl}/settings/tokens/${token.id}/revoke`);
    await server.database.db('member_sessions').where({ member_id: member.id }).delete();
    await submit('main button:has-text("Revoke token")');
    expect(new URL(page.url()).pathname).toBe('/login');
    expect(new URL(page.url()).searchParams.get('return_to')).toBe('/settings/tokens');
    expect(await page.locator('[role="status"]').innerText()).toContain('You were signed out meanwhile');
    await page.fill('input[name="email"]', member.email);
    await page.fill('input[name="password"]', member.password);
    await submit('button[type="submit"]');
    expect(page.url()).toBe(`${server.baseUrl}/settings/tokens`);
    expect(await page.locator('h1').innerText()).toBe('Personal access tokens');
    // Nothing was done behind the member's back: the token is still live, its Revoke link there.
    expect(await introspectAsApi(server, token.token)).toMatchObject({ active: true });
    expect(await page.locator('a[aria-label="Revoke kept"]').count()).toBe(1);
  });

  it('serves its pages with a strict CSP that forbids framing', async () => {
    const response = await fetch(`${server.baseUrl}/login`);
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(response.headers.get('x-frame-options')).toBe('DENY');
  });
});
