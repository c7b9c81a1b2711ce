import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAuthConfig } from '../src/config';
import { type RunningAuthServer, startAuthServer } from './support/auth-server';
import { aMember, anApplication, type TestMember } from './support/factories';

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
      expect.arrayContaining(['csrf_seed', 'member_session']),
    );
    for (const cookie of cookies) {
      expect(cookie).toMatch(/;\s*secure/i);
      expect(cookie).toMatch(/;\s*httponly/i);
      expect(cookie).toMatch(/;\s*samesite=lax/i);
    }
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
