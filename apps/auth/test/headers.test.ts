import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAuthConfig } from '../src/config';
import { type RunningAuthServer, startAuthServer } from './support/auth-server';
import { authorizeWithHttpBrowser } from './support/authorize-with-http-browser';
import { aMember, anApplication, type TestMember } from './support/factories';
import { httpBrowser } from './support/http-browser';

/**
 * Page protections, on a server whose public URL is https behind a TLS-terminating proxy
 * (X-Forwarded-Proto, which the app trusts): CSP, framing, HSTS, cookie flags, local redirects.
 */
let server: RunningAuthServer;
let member: TestMember;
const viaTls = { 'x-forwarded-proto': 'https' };
beforeAll(async () => {
  server = await startAuthServer({ secureCookies: true });
  member = await aMember(server.database.db);
});
afterAll(async () => server?.stop());

/** What a browser requires of a __Host- cookie (and this server of every cookie over https). */
function expectHostOnly(cookie: string): void {
  expect(cookie).toMatch(/;\s*secure/i);
  expect(cookie).toMatch(/;\s*path=\/(;|$)/i);
  expect(cookie).not.toMatch(/;\s*domain=/i);
  expect(cookie).toMatch(/;\s*httponly/i);
  expect(cookie).toMatch(/;\s*samesite=lax/i);
}

async function signIn(returnTo: string) {
  const page = await fetch(`${server.baseUrl}/login`, { headers: viaTls });
  const cookie = page.headers
    .getSetCookie()
    .map((value) => value.split(';')[0])
    .join('; ');
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  return fetch(`${server.baseUrl}/login?return_to=${encodeURIComponent(returnTo)}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { ...viaTls, cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf, email: member.email, password: member.password }),
  });
}

describe('an https PUBLIC_URL reached over plain http', () => {
  it('answers 400 naming the cause (X-Forwarded-Proto), never a 500, while health checks still answer', async () => {
    const page = await fetch(`${server.baseUrl}/login`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('X-Forwarded-Proto: https');
    const token = await fetch(`${server.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { accept: 'application/json' },
    });
    expect(token.status).toBe(400);
    expect(((await token.json()) as { error: string }).error).toBe('invalid_request');
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
  });
});

describe('page headers', () => {
  it('serves every page with a strict CSP (no inline code, never framed) and the other page headers', async () => {
    const app = await anApplication(server.database.db);
    const pages = [
      await fetch(`${server.baseUrl}/login`, { headers: viaTls }),
      await fetch(`${server.baseUrl}/interaction/unknown`, { headers: viaTls }),
      // The error page of an authorization request that cannot go back to the application.
      await fetch(
        `${server.baseUrl}/oauth/authorize?client_id=${app.client_id}&redirect_uri=https%3A%2F%2Fevil.example&response_type=code&scope=*`,
        {
          headers: { ...viaTls, accept: 'text/html' },
          redirect: 'manual',
        },
      ),
    ];
    for (const page of pages) {
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      const csp = page.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("base-uri 'none'");
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
      expect(page.headers.get('cache-control')).toBe('no-store');
      expect(page.headers.get('strict-transport-security')).toMatch(/max-age=\d{8,}/);
      expect(page.headers.get('location')).toBeNull();
    }
  });

  it('sends HSTS only behind TLS', async () => {
    const plain = await startAuthServer();
    try {
      const page = await fetch(`${plain.baseUrl}/login`);
      expect(page.headers.get('strict-transport-security')).toBeNull();
      const proxied = await fetch(`${plain.baseUrl}/login`, { headers: viaTls });
      expect(proxied.headers.get('strict-transport-security')).toMatch(/max-age=/);
    } finally {
      await plain.stop();
    }
  });

  it('sets every cookie HttpOnly, SameSite=Lax and Secure when the public URL is https', async () => {
    expect(
      (await loadAuthConfig({ PUBLIC_URL: 'https://auth.example', DATA_DIR: '/tmp/auth-headers-test' }, { port: 1 }))
        .secureCookies,
    ).toBe(true);
    expect(
      (await loadAuthConfig({ PUBLIC_URL: 'http://localhost:3000', DATA_DIR: '/tmp/auth-headers-test' }, { port: 1 }))
        .secureCookies,
    ).toBe(false);

    const page = await fetch(`${server.baseUrl}/login`, { headers: viaTls });
    const signedIn = await signIn('/settings/tokens');
    expect(signedIn.status).toBe(303);
    const cookies = [...page.headers.getSetCookie(), ...signedIn.headers.getSetCookie()];
    expect(cookies.map((cookie) => cookie.split('=')[0])).toEqual(
      expect.arrayContaining(['__Host-csrf_seed', '__Host-member_session', '__Host-member_session.sig']),
    );
    for (const cookie of cookies) expectHostOnly(cookie);
  });

  it('keeps its browser cookies to this host (__Host-): a seed planted by a sibling host is not used', async () => {
    // What an attacker's own visit gives them: a seed and the form token that goes with it.
    const theirs = await fetch(`${server.baseUrl}/login`, { headers: viaTls });
    const seed = /^__Host-csrf_seed=([^;]+)/.exec(theirs.headers.getSetCookie().join('\n'))?.[1];
    const csrf = /name="csrf" value="([^"]+)"/.exec(await theirs.text())?.[1] ?? '';
    expect(seed).toBeTruthy();
    // A page on another subdomain can plant `csrf_seed` (Domain=) but never a __Host- cookie.
    const forged = (cookie: string) =>
      fetch(`${server.baseUrl}/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { ...viaTls, cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf, email: member.email, password: member.password }),
      });
    const refused = await forged(`csrf_seed=${seed}`);
    expect(refused.status).toBe(403);
    // A page of the site that says what happened and what to do, not bare text: without this
    // host's seed the browser sent none of the site's cookies, as one that blocks them does.
    expect(refused.headers.get('content-type')).toContain('text/html');
    expect(await refused.text()).toMatch(
      /<h1>This site needs cookies to sign you in<\/h1>[\s\S]*reload the page and try again/,
    );
    // The control: the same seed, where only this host could have put it, is accepted.
    expect((await forged(`__Host-csrf_seed=${seed}`)).status).toBe(303);
  });

  it("names oidc-provider's session cookie __Host-_session and clears the member's cookie with its prefix's attributes", async () => {
    const app = await anApplication(server.database.db);
    const browser = httpBrowser(server.baseUrl, 'TestBrowser/1.0', viaTls);
    await browser.signIn(member.email, member.password);
    const authorizePath = `/oauth/authorize?${new URLSearchParams({
      client_id: app.client_id,
      redirect_uri: app.redirect_uri,
      response_type: 'code',
      scope: 'contacts:read',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWQTpqz0oaUZc',
      code_challenge_method: 'S256',
    })}`;
    expect(
      (await authorizeWithHttpBrowser(browser, server.baseUrl, authorizePath, app.redirect_uri)).code,
    ).toBeTruthy();
    expect([...browser.cookies.keys()]).toEqual(expect.arrayContaining(['__Host-_session', '__Host-member_session']));
    expect([...browser.cookies.keys()].filter((name) => /^_?session|^member_session|^csrf_seed/.test(name))).toEqual(
      [],
    );

    const cookie = [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const page = await fetch(`${server.baseUrl}/settings/sessions`, { headers: { ...viaTls, cookie } });
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
    const signOut = await fetch(`${server.baseUrl}/logout`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        ...viaTls,
        cookie,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ csrf }),
    });
    const cleared = signOut.headers.getSetCookie().filter((cookie) => cookie.startsWith('__Host-member_session='));
    expect(cleared.length).toBeGreaterThan(0);
    // A browser ignores a __Host- cookie (its removal included) that is not Secure with Path=/.
    for (const cookie of cleared) expectHostOnly(cookie);
  });

  it('follows only local paths after sign-in (no open redirect)', async () => {
    const hostile = [
      'https://evil.example/',
      '//evil.example',
      '/\\evil.example',
      '\\\\evil.example',
      '/\t/evil.example',
      '/%2F%2Fevil.example',
      'javascript:alert(1)',
      ' //evil.example',
      'evil.example',
      `${server.baseUrl}.evil.example/`,
    ];
    for (const returnTo of hostile) {
      const response = await signIn(returnTo);
      expect(response.status, returnTo).toBe(303);
      const location = response.headers.get('location') ?? '';
      const target = new URL(location, server.baseUrl);
      expect(target.origin, `${returnTo} → ${location}`).toBe(server.baseUrl);
      expect(location, returnTo).toMatch(/^\/(?![/\\])/);
    }
    expect((await signIn('/settings/security')).headers.get('location')).toBe('/settings/security');
  });
});
