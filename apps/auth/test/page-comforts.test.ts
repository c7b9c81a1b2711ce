import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningAuthServer, startAuthServer } from './support/auth-server';
import { launchBrowser } from './support/browser';
import { aMember, anApplication } from './support/factories';
import { aSignedInMember, httpBrowser } from './support/http-browser';
import { authorizeUrl, discover } from './support/oauth-client';

/**
 * What a member meets around the forms (the browser probe of 2026-11-27): the site's icon, a
 * word after signing out, the way back from a refused sign-in's address, and the focus on the
 * field a refused form is about.
 */
let server: RunningAuthServer;
let browser: Browser;
beforeAll(async () => {
  server = await startAuthServer();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('around the forms', () => {
  it('names its icon on every page, and serves it there and at /favicon.ico (no 404 in the console)', async () => {
    const page = await fetch(`${server.baseUrl}/login`).then((response) => response.text());
    const href = /<link rel="icon" href="([^"]+)" type="image\/svg\+xml">/.exec(page)?.[1] as string;
    for (const path of [href, '/favicon.ico']) {
      const icon = await fetch(`${server.baseUrl}${path}`);
      expect(icon.status, path).toBe(200);
      expect(icon.headers.get('content-type'), path).toBe('image/svg+xml');
      expect(await icon.text(), path).toMatch(/^<svg /);
    }
  });

  it('says on the sign-in page that the member has signed out', async () => {
    const { browser: member } = await aSignedInMember(server);
    const signedOut = await member.submit('/logout', '/logout', {});
    expect(signedOut.status).toBe(303);
    const page = await member.get(signedOut.location as string);
    expect(page.html).toContain('You have signed out of this site in this browser.');
    // Any other reason is no reason: nothing is said.
    expect((await member.get('/login?reason=other')).html).not.toContain('role="status"');
  });

  it("leads a refused sign-in's address, opened again, back to the application's sign-in step", async () => {
    const owner = await aMember(server.database.db);
    const app = await anApplication(server.database.db, { owner, redirectUri: 'https://app.example/cb' });
    const visitor = httpBrowser(server.baseUrl);
    const url = new URL(
      authorizeUrl(await discover(server.baseUrl), {
        client_id: app.client_id,
        redirect_uri: 'https://app.example/cb',
      }),
    );
    const step = (await visitor.get(url.pathname + url.search)).location as string;
    const refused = await visitor.submit(step, `${step}/login`, { email: owner.email, password: 'not the password' });
    expect(refused.status).toBe(401);
    // The address bar now shows the form's address; Enter there is a GET.
    const again = await visitor.get(`${step}/login`);
    expect(again.status).toBe(302);
    expect(again.location).toBe(step);
    const signIn = await visitor.get(step);
    expect(signIn.status).toBe(200);
    expect(signIn.html).toContain(`action="${step}/login"`);
  });

  it('puts the focus on the field a refused form is about, marked as well as announced', async () => {
    const member = await aMember(server.database.db);
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await page.goto(`${server.baseUrl}/login`);
      await page.fill('#email', member.email);
      await page.fill('#password', 'not the password');
      await Promise.all([page.waitForLoadState('load'), page.click('button[type="submit"]')]);
      // The address is kept; the password is what to type again.
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('password');

      await page.fill('#password', member.password);
      await Promise.all([page.waitForURL(/\/settings\//), page.click('button[type="submit"]')]);
      await page.goto(`${server.baseUrl}/settings/password`);
      await page.fill('#current-password', 'not the password');
      await page.fill('#new-password', 'a new long enough password');
      await Promise.all([page.waitForLoadState('load'), page.click('form[action="/settings/password"] button')]);
      const focused = await page.evaluate(() => {
        const field = document.activeElement as HTMLElement;
        return { id: field.id, border: getComputedStyle(field).borderTopColor };
      });
      expect(focused).toEqual({ id: 'current-password', border: 'rgb(180, 35, 24)' });
    } finally {
      await context.close();
    }
  });
});
