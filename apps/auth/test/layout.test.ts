import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerClient } from '../src/index';
import { type RunningAuthServer, startAuthServer } from './support/auth-server';
import { authorizeInBrowser, launchBrowser } from './support/browser';
import { type CallbackServer, startCallbackServer } from './support/callback-server';
import { aMember, type TestMember } from './support/factories';
import { authorizeUrl, discover } from './support/oauth-client';

/**
 * Every page a member sees, at the narrowest phone's width (320 px, WCAG 2.1's reflow width) and a
 * desktop's: nothing scrolls sideways, no text runs out of its box, the browser logs no error
 * (not even a missing icon), and axe-core finds no WCAG 2.1 AA violation. Each settings page has rows to show,
 * with long values (names, redirect URIs, client ids), as the narrow layout must cope with.
 */
const WIDTHS = [
  { name: 'phone', width: 320, height: 640 },
  { name: 'desktop', width: 1280, height: 900 },
];
const PAGES = [
  '/settings/applications',
  '/settings/tokens',
  '/settings/authorized-apps',
  '/settings/security',
  '/settings/sessions',
  '/settings/password',
];
const WCAG_21_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
/**
 * A member's desktop Chrome, not the test browser's own "HeadlessChrome": the sessions page names
 * the browsers it recognises, and those are the names it must lay out.
 */
const DESKTOP_CHROME =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

let server: RunningAuthServer;
let browser: Browser;
let callbacks: CallbackServer;
let member: TestMember;
let axeSource: string;
/** An application's edit form: a page of its own under /settings/applications. */
let editPage: string;
/** The same, and its consent page, for an application whose name is one word as long as allowed and whose host is long. */
let longNamedEditPage: string;
let longNamedAuthorizeUrl: string;
/** The pages that ask before a change that cannot be undone, about the items above. */
let confirmationPages: string[];

beforeAll(async () => {
  server = await startAuthServer();
  browser = await launchBrowser();
  callbacks = await startCallbackServer();
  axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  member = await aMember(server.database.db, {
    name: 'Grace Brewster Murray Hopper',
    email: 'grace.brewster.murray.hopper@navy.example.test',
  });
  const client = await registerClient(server.database.db, {
    ownerId: member.id,
    name: 'Quarterly membership reconciliation exporter',
    redirectUris: [callbacks.redirectUri, 'https://reconciliation.members.example.org/oauth/callback/production'],
  });
  editPage = `/settings/applications/${client.client_id}`;
  await server.auth.personalTokens.create(member.id, { name: 'Nightly contacts export', scopes: '*' });
  // Names as long as allowed, without a space to break at: they wrap instead of widening the page.
  const unbroken = 'Exporter'.repeat(13).slice(0, 100);
  const unbrokenToken = await server.auth.personalTokens.create(member.id, { name: unbroken, scopes: '*' });
  const longHost = `https://${'reconciliation'.repeat(4)}.members.example.org/oauth/callback`;
  const longNamed = await registerClient(server.database.db, {
    ownerId: member.id,
    name: unbroken,
    redirectUris: [longHost],
  });
  longNamedEditPage = `/settings/applications/${longNamed.client_id}`;
  confirmationPages = [
    `${longNamedEditPage}/rotate-secret`,
    `${longNamedEditPage}/delete`,
    `/settings/tokens/${unbrokenToken.id}/revoke`,
    `/settings/authorized-apps/${client.client_id}/revoke`,
  ];
  longNamedAuthorizeUrl = authorizeUrl(await discover(server.baseUrl), {
    client_id: longNamed.client_id,
    redirect_uri: longHost,
  });
  // A consent (authorized app) and, with the sign-ins, security-log entries.
  const page = await browser.newPage();
  const app = { client_id: client.client_id, redirect_uri: callbacks.redirectUri };
  await authorizeInBrowser(page, authorizeUrl(await discover(server.baseUrl), app), app.redirect_uri, member);
  await page.close();
});
afterAll(async () => {
  await browser?.close();
  await callbacks?.close();
  await server?.stop();
});

async function signedIn(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${server.baseUrl}/login`);
  await page.fill('input[name="email"]', member.email);
  await page.fill('input[name="password"]', member.password);
  await Promise.all([
    page.waitForURL((url) => url.pathname.startsWith('/settings')),
    page.click('button[type="submit"]'),
  ]);
  return page;
}

async function check(page: Page, path: string, width: string) {
  const consoleErrors: string[] = [];
  const onConsole = (message: { type(): string; text(): string }) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  };
  page.on('console', onConsole);
  await page.goto(path.startsWith('http') ? path : `${server.baseUrl}${path}`);
  await page.waitForLoadState('networkidle');
  page.off('console', onConsole);
  expect(consoleErrors, `${path} at ${width} width`).toEqual([]);
  await page.screenshot({
    path: `/tmp/contacts-layout-${width}-${new URL(path, server.baseUrl).pathname.replaceAll('/', '_')}.png`,
    fullPage: true,
  });
  const overflow = await page.evaluate(() => {
    const root = document.scrollingElement as Element;
    return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth };
  });
  expect(overflow.scrollWidth, `${path} scrolls sideways at ${width} width`).toBeLessThanOrEqual(overflow.clientWidth);
  // Boxes whose content is wider than they are and shows over their edge (a word that cannot
  // break, a button): the innermost of them, outside anything that clips (the visually hidden headers).
  const spilling = await page.evaluate(() => {
    const clipped = (element: Element) => {
      for (let above = element.parentElement; above; above = above.parentElement) {
        if (getComputedStyle(above).overflowX !== 'visible') return true;
      }
      return false;
    };
    const spills = Array.from(document.body.querySelectorAll('*')).filter((element) => {
      const style = getComputedStyle(element);
      return (
        style.display !== 'inline' &&
        style.overflowX === 'visible' &&
        element.clientWidth > 0 &&
        element.scrollWidth > element.clientWidth + 1 &&
        !clipped(element)
      );
    });
    return spills
      .filter((element) => !spills.some((inner) => inner !== element && element.contains(inner)))
      .map((element) => `${element.tagName.toLowerCase()}: ${element.textContent?.trim().slice(0, 40)}`);
  });
  expect(spilling, `${path} at ${width} width`).toEqual([]);
  // Evaluated through the DevTools protocol: the page's CSP (no inline scripts) does not apply.
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async (tags) => {
    const axe = (
      window as unknown as {
        axe: {
          run(
            context: Document,
            options: object,
          ): Promise<{ violations: Array<{ id: string; nodes: Array<{ target: unknown }> }> }>;
        };
      }
    ).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: tags } });
    return result.violations.map((violation) => ({
      id: violation.id,
      targets: violation.nodes.map((node) => node.target),
    }));
  }, WCAG_21_AA);
  expect(violations, `${path} at ${width} width`).toEqual([]);
}

describe.each(WIDTHS)('member pages at $name width ($width px)', ({ name, width, height }) => {
  it('the sign-in page fits and has no accessibility violation', async () => {
    const context = await browser.newContext({ viewport: { width, height }, userAgent: DESKTOP_CHROME });
    try {
      const page = await context.newPage();
      await check(page, '/login', name);
      // And with its notice for a form posted after the session ended.
      await check(page, '/login?return_to=%2Fsettings%2Ftokens&reason=signed_out', name);
      expect(await page.locator('[role="status"]').count()).toBe(1);
    } finally {
      await context.close();
    }
  });

  it.each(PAGES)('%s fits the width and has no accessibility violation', async (path) => {
    const context = await browser.newContext({ viewport: { width, height }, userAgent: DESKTOP_CHROME });
    try {
      const page = await signedIn(context);
      await check(page, path, name);
      // Each settings page with a table shows at least one row (the narrow layout is tested with content).
      if (path !== '/settings/password') expect(await page.locator('table tbody tr').count()).toBeGreaterThan(0);
    } finally {
      await context.close();
    }
  });

  it("an application's edit form fits the width and has no accessibility violation", async () => {
    const context = await browser.newContext({ viewport: { width, height }, userAgent: DESKTOP_CHROME });
    try {
      await check(await signedIn(context), editPage, name);
    } finally {
      await context.close();
    }
  });

  it('an application with the longest one-word name and a long host: its edit form and consent page fit the width', async () => {
    const context = await browser.newContext({ viewport: { width, height }, userAgent: DESKTOP_CHROME });
    try {
      const page = await signedIn(context);
      await check(page, longNamedEditPage, name);
      await check(page, longNamedAuthorizeUrl, name);
      expect(await page.locator('button[value="allow"]').count()).toBe(1);
    } finally {
      await context.close();
    }
  });

  it('the pages that ask before rotating, deleting and revoking fit the width and have no accessibility violation', async () => {
    const context = await browser.newContext({ viewport: { width, height }, userAgent: DESKTOP_CHROME });
    try {
      const page = await signedIn(context);
      for (const path of confirmationPages) {
        await check(page, path, name);
        expect(await page.locator('main form button.danger').count(), path).toBe(1);
      }
    } finally {
      await context.close();
    }
  });

  it('keeps the header to one row of tabs, or a tidy grid of them on a phone', async () => {
    const context = await browser.newContext({ viewport: { width, height }, userAgent: DESKTOP_CHROME });
    try {
      const page = await signedIn(context);
      const tops = await page
        .locator('.topbar nav a')
        .evaluateAll((links) => links.map((link) => Math.round(link.getBoundingClientRect().top)));
      const rows = new Set(tops).size;
      // A phone gets a two-column grid of the tabs; a desktop one row.
      expect(rows).toBe(width < 640 ? Math.ceil(tops.length / 2) : 1);
    } finally {
      await context.close();
    }
  });
});

describe('browser sessions page', () => {
  it("names each session's Sign out button in plain words, whatever a User-Agent holds", async () => {
    // Someone else signed in to the account with a User-Agent made to look like markup.
    const intruder = await browser.newContext({
      userAgent: 'Mozilla/5.0 (Windows NT 10.0) Chrome/131.0 disabled formaction=https://evil.example/steal',
    });
    const member = await browser.newContext({ userAgent: DESKTOP_CHROME });
    try {
      await signedIn(intruder);
      const page = await signedIn(member);
      await page.goto(`${server.baseUrl}/settings/sessions`);
      const buttons = await page.locator('form[action$="/sign-out"] button').evaluateAll((found) =>
        found.map((button) => ({
          attributes: button.getAttributeNames().sort(),
          text: (button as HTMLElement).innerText,
          label: button.getAttribute('aria-label'),
          disabled: (button as HTMLButtonElement).disabled,
        })),
      );
      expect(buttons.length).toBeGreaterThanOrEqual(2);
      for (const button of buttons) {
        expect(button).toEqual({
          attributes: ['aria-label', 'class', 'type'],
          text: 'Sign out',
          label: expect.stringMatching(
            /^Sign out (Chrome on (Linux|Windows)|[^<>]+), signed in \d{4}-\d\d-\d\d \d\d:\d\d$/,
          ),
          disabled: false,
        });
      }
      expect(buttons.map((button) => button.label)).toEqual(
        expect.arrayContaining([expect.stringContaining('Sign out Chrome on Windows, signed in')]),
      );
    } finally {
      await intruder.close();
      await member.close();
    }
  });
});
