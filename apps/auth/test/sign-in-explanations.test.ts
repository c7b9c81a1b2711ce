import { launchBrowserBlockingCookies } from '@contacts/config/testing/browser';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningAuthServer, startAuthServer } from './support/auth-server';
import { authorizeInBrowser, launchBrowser } from './support/browser';
import { type CallbackServer, startCallbackServer } from './support/callback-server';
import { aMember, anApplication, type TestApplication, type TestMember } from './support/factories';
import { httpBrowser } from './support/http-browser';
import { authorizeUrl, discover } from './support/oauth-client';

/**
 * What a member is told when signing in cannot go on: a browser that blocks cookies hears that
 * the site needs them (not that a form expired), a form of an older page that it is out of date,
 * and a sign-in request already answered (Back after Allow) that it is closed, not that it failed.
 */
let server: RunningAuthServer;
let browser: Browser;
let callbacks: CallbackServer;
let member: TestMember;
let app: TestApplication;
let host: string;

beforeAll(async () => {
  server = await startAuthServer();
  browser = await launchBrowser();
  callbacks = await startCallbackServer();
  member = await aMember(server.database.db);
  app = await anApplication(server.database.db, { redirectUri: callbacks.redirectUri });
  host = new URL(server.baseUrl).host;
});
afterAll(async () => {
  await browser?.close();
  await callbacks?.close();
  await server?.stop();
});

const mainText = (page: Page) => page.locator('main').innerText();

describe('a browser that blocks cookies', () => {
  let blocking: BrowserContext;
  beforeAll(async () => {
    blocking = await launchBrowserBlockingCookies();
  });
  afterAll(async () => blocking?.close());

  it('is told at sign-in that this site needs cookies, and for which host to allow them', async () => {
    const page = await blocking.newPage();
    await page.goto(`${server.baseUrl}/login`);
    // The sign-in page set its CSRF seed cookie; this browser did not keep it.
    expect(await blocking.cookies()).toEqual([]);
    await page.fill('input[name="email"]', member.email);
    await page.fill('input[name="password"]', member.password);
    const [answer] = await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
    expect(answer?.status()).toBe(403);
    expect(await page.locator('h1').innerText()).toBe('This site needs cookies to sign you in');
    const text = await mainText(page);
    expect(text).toContain(`allow them for ${host}`);
    expect(text).not.toMatch(/expired|too long/);
  });

  it("is told the same when an application's sign-in starts, not that the sign-in expired", async () => {
    const page = await blocking.newPage();
    const answer = await page.goto(authorizeUrl(await discover(server.baseUrl), app));
    expect(answer?.status()).toBe(400);
    expect(await page.locator('h1').innerText()).toBe('This site needs cookies to sign you in');
    expect(await mainText(page)).toContain('go back to the application and start again');
  });
});

describe('a form whose token does not match (its page was loaded under another cookie)', () => {
  it('is out of date: the page says so, without blaming cookies or a time limit', async () => {
    const stale = httpBrowser(server.baseUrl);
    const oldPage = await stale.get('/login');
    const oldToken = /name="csrf" value="([^"]+)"/.exec(oldPage.html)?.[1] as string;
    // The site's cookie is replaced since (cleared in another tab, and the site visited again).
    stale.cookies.clear();
    await stale.get('/login');
    const answer = await stale.post('/login', { csrf: oldToken, email: member.email, password: member.password });
    expect(answer.status).toBe(403);
    expect(answer.html).toContain('<h1>This form is out of date</h1>');
    expect(answer.html).toContain('Go back, reload the page and try again.');
    expect(answer.html).not.toMatch(/needs cookies|too long/);
  });
});

describe('going Back to the consent page after Allow', () => {
  it('says the request may have been completed, in no alert, and links to the authorized apps', async () => {
    const page = await (await browser.newContext()).newPage();
    const { callback } = await authorizeInBrowser(
      page,
      authorizeUrl(await discover(server.baseUrl), app),
      app.redirect_uri,
      member,
    );
    expect(callback?.searchParams.get('code')).toBeTruthy();
    const back = await page.goBack();
    expect(new URL(page.url()).pathname).toMatch(/^\/interaction\//);
    expect(back?.status()).toBe(400);
    expect(await page.locator('h1').innerText()).toBe('This sign-in request is closed');
    expect(await page.locator('[role="alert"]').count()).toBe(0);
    expect(await mainText(page)).toContain('your answer was sent to it');
    expect(await page.locator('a[href="/settings/authorized-apps"]').count()).toBe(1);
    await page.context().close();
  });
});
