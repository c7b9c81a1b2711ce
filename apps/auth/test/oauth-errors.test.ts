import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { revokeAuthorizedApp } from '../src/lib/authorized-apps';
import { type RunningAuthServer, startAuthServer } from './support/auth-server';
import { authorizeInBrowser, launchBrowser } from './support/browser';
import { type CallbackServer, startCallbackServer } from './support/callback-server';
import { aMember, anApplication, type TestApplication, type TestMember } from './support/factories';
import { authorizeUrl, discover, heldErrorAnswer, oauth, tokenRequest } from './support/oauth-client';

let server: RunningAuthServer;
let browser: Browser;
let context: BrowserContext;
let as: oauth.AuthorizationServer;
let member: TestMember;
let app: TestApplication;
let callbacks: CallbackServer;

beforeAll(async () => {
  server = await startAuthServer();
  browser = await launchBrowser();
  context = await browser.newContext();
  as = await discover(server.baseUrl);
  callbacks = await startCallbackServer();
  member = await aMember(server.database.db);
  app = await anApplication(server.database.db, { redirectUri: callbacks.redirectUri });
});
afterAll(async () => {
  await browser?.close();
  await callbacks?.close();
  await server?.stop();
});

async function authorize(
  params: Record<string, string> = {},
  application: TestApplication = app,
  decision: 'allow' | 'deny' = 'allow',
) {
  const { callback } = await authorizeInBrowser(
    await context.newPage(),
    authorizeUrl(as, application, params),
    application.redirect_uri,
    {
      email: member.email,
      password: member.password,
      decision,
    },
  );
  if (!callback) throw new Error('the browser never reached the redirect URI');
  return callback;
}

const exchange = (code: string, overrides: Record<string, string> = {}, application: TestApplication = app) =>
  tokenRequest(as, {
    grant_type: 'authorization_code',
    client_id: application.client_id,
    client_secret: application.client_secret ?? '',
    redirect_uri: application.redirect_uri,
    code,
    ...overrides,
  });

describe('authorization request errors', () => {
  it('redirects a denial back to the application with access_denied and the state', async () => {
    const fresh = await anApplication(server.database.db, { name: 'Denied app', redirectUri: callbacks.redirectUri });
    const callback = await authorize({ state: 'keep-me' }, fresh, 'deny');
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('state')).toBe('keep-me');
    expect(callback.searchParams.get('code')).toBeNull();
  });

  it('sends the application access_denied when the member cancels at the sign-in page, before signing in', async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(authorizeUrl(as, app, { state: 'cancelled' }));
    await page.waitForSelector('input[name="password"]');
    const [callback] = await Promise.all([
      page.waitForRequest((request) => request.url().startsWith(app.redirect_uri)),
      page.getByRole('button', { name: 'Cancel and return to the application' }).click(),
    ]);
    const answer = new URL(callback.url());
    expect(answer.searchParams.get('error')).toBe('access_denied');
    expect(answer.searchParams.get('state')).toBe('cancelled');
    expect(answer.searchParams.get('code')).toBeNull();
    await page.context().close();
  });

  it('refuses an unknown scope with invalid_scope', async () => {
    const answer = await heldErrorAnswer(
      await fetch(authorizeUrl(as, app, { scope: 'contacts:read admin' }), { redirect: 'manual' }),
    );
    expect(answer.origin + answer.pathname).toBe(app.redirect_uri);
    expect(answer.searchParams.get('error')).toBe('invalid_scope');
    expect(answer.searchParams.get('state')).toBe('state-123');
  });

  it.each([
    ['without a scope parameter', undefined, {}],
    ['with an empty scope', '', {}],
    ['with offline_access alone', 'offline_access', {}],
    // oidc-provider keeps offline_access under prompt=consent: this was an empty consent page.
    ['with offline_access alone and prompt=consent', 'offline_access', { prompt: 'consent' }],
  ])(
    'refuses a request %s with invalid_scope (RFC 6749 §3.3), not as if the member had denied it',
    async (_, scope, extra: Record<string, string>) => {
      const url = new URL(authorizeUrl(as, app));
      if (scope === undefined) url.searchParams.delete('scope');
      else url.searchParams.set('scope', scope);
      for (const [name, value] of Object.entries(extra)) url.searchParams.set(name, value);
      const answer = await heldErrorAnswer(await fetch(url, { redirect: 'manual' }));
      expect(answer.origin + answer.pathname).toBe(app.redirect_uri);
      expect(answer.searchParams.get('error')).toBe('invalid_scope');
      expect(answer.searchParams.get('error_description')).toContain('scope is required');
      expect(answer.searchParams.get('state')).toBe('state-123');
    },
  );

  it('never redirects to a redirect URI that is not registered exactly', async () => {
    for (const redirectUri of [
      `${app.redirect_uri}/extra`,
      `${app.redirect_uri}?x=1`,
      app.redirect_uri.replace('localhost', '127.0.0.1'),
    ]) {
      const response = await fetch(authorizeUrl(as, { ...app, redirect_uri: redirectUri }), { redirect: 'manual' });
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      const page = await response.text();
      expect(page).toContain('asked to send you back to an address it has not registered');
      expect(page).toContain('For the developer of the application: invalid_redirect_uri:');
      expect(page).toContain('redirect_uri');
    }
  });

  it('shows an error page, not a redirect, for an unknown client', async () => {
    const response = await fetch(authorizeUrl(as, { ...app, client_id: 'no-such-client' }), {
      redirect: 'manual',
      headers: { accept: 'text/html' },
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    const page = await response.text();
    // In the member's words first, then the code for whoever runs the application.
    expect(page).toContain('This application is not registered here, or no longer is.');
    expect(page).toContain('For the developer of the application: invalid_client:');
  });

  it('answers a wrong password and an unknown e-mail with the same message', async () => {
    const page = await (await browser.newContext()).newPage();
    const messages: string[] = [];
    for (const credentials of [
      { email: member.email, password: 'wrong password' },
      { email: 'nobody@example.test', password: 'wrong password' },
    ]) {
      await authorizeInBrowser(page, authorizeUrl(as, app), app.redirect_uri, credentials);
      messages.push(await page.locator('[role="alert"]').innerText());
    }
    expect(messages[0]).toBe('The e-mail address or password is not correct.');
    expect(messages[1]).toBe(messages[0]);
  });

  it('refuses a sign-in form posted without its CSRF token', async () => {
    const start = await fetch(authorizeUrl(as, app), { redirect: 'manual' });
    const interaction = start.headers.get('location') as string;
    const cookies = start.headers
      .getSetCookie()
      .map((cookie) => cookie.split(';')[0])
      .join('; ');
    const response = await fetch(new URL(`${interaction}/login`, server.baseUrl), {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: cookies, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: member.email, password: member.password }),
    });
    expect(response.status).toBe(403);
  });
});

describe('token request errors', () => {
  it('refuses a wrong client secret with invalid_client', async () => {
    const callback = await authorize();
    const result = await exchange(callback.searchParams.get('code') as string, { client_secret: 'not-the-secret' });
    expect(result.status).toBe(401);
    expect(result.body.error).toBe('invalid_client');
  });

  it('refuses a code exchanged with another redirect URI', async () => {
    const callback = await authorize();
    const result = await exchange(callback.searchParams.get('code') as string, {
      redirect_uri: `${app.redirect_uri}/other`,
    });
    expect(result.status).toBe(400);
    expect(result.body.error).toBe('invalid_grant');
  });

  it('accepts a code once; a second exchange fails and revokes what the first one issued', async () => {
    const code = (await authorize()).searchParams.get('code') as string;
    const first = await exchange(code);
    expect(first.status).toBe(200);
    const second = await exchange(code);
    expect(second.body.error).toBe('invalid_grant');
    const refresh = await tokenRequest(as, {
      grant_type: 'refresh_token',
      refresh_token: first.body.refresh_token as string,
      client_id: app.client_id,
      client_secret: app.client_secret as string,
    });
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it('lets two requests racing with one code never both win', async () => {
    const code = (await authorize()).searchParams.get('code') as string;
    const results = await Promise.all(Array.from({ length: 5 }, () => exchange(code)));
    expect(results.filter((result) => result.status === 200).length).toBeLessThanOrEqual(1);
    expect(results.every((result) => result.status === 200 || result.body.error === 'invalid_grant')).toBe(true);
  });

  it('refuses a code older than 60 seconds', async () => {
    const code = (await authorize()).searchParams.get('code') as string;
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 61_000);
      const result = await exchange(code);
      expect(result.body.error).toBe('invalid_grant');
    } finally {
      vi.useRealTimers();
    }
  });

  it('lets parallel refreshes of one refresh token succeed exactly once', async () => {
    const tokens = (await exchange((await authorize()).searchParams.get('code') as string)).body;
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        tokenRequest(as, {
          grant_type: 'refresh_token',
          refresh_token: tokens.refresh_token as string,
          client_id: app.client_id,
          client_secret: app.client_secret as string,
        }),
      ),
    );
    expect(results.filter((result) => result.status === 200)).toHaveLength(1);
    expect(
      results.filter((result) => result.status !== 200).every((result) => result.body.error === 'invalid_grant'),
    ).toBe(true);
  });
});

describe('errors sent back only to applications the member trusts (RFC 9700 §4.11.2)', () => {
  it('shows a page naming the application and the error to a browser with nobody signed in, with a link back', async () => {
    const response = await fetch(authorizeUrl(as, app, { scope: 'contacts:read admin' }), { redirect: 'manual' });
    const page = await response.clone().text();
    expect(page).toContain('The request of “Test application” could not be processed');
    expect(page).toContain('invalid_scope');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect((await heldErrorAnswer(response)).searchParams.get('error')).toBe('invalid_scope');
  });

  it("holds prompt=none's login_required for a browser with nobody signed in", async () => {
    const answer = await heldErrorAnswer(
      await fetch(authorizeUrl(as, app, { prompt: 'none' }), { redirect: 'manual' }),
    );
    expect(answer.searchParams.get('error')).toBe('login_required');
  });

  it('holds a form_post error without the form that would send the browser there', async () => {
    const response = await fetch(authorizeUrl(as, app, { scope: 'admin', response_mode: 'form_post' }), {
      redirect: 'manual',
    });
    expect(response.status).toBe(400);
    const page = await response.text();
    expect(page).toContain('You have not authorized this application');
    expect(page).not.toContain(app.redirect_uri);
    expect(page).not.toContain('<form method="post"');
  });

  /** A browser where the member signed in through `authorized`'s authorization (and allowed it). */
  const browserThatAuthorized = async (authorized: TestApplication) => {
    const browserContext = await browser.newContext();
    const { page } = await authorizeInBrowser(
      await browserContext.newPage(),
      authorizeUrl(as, authorized),
      authorized.redirect_uri,
      { email: member.email, password: member.password },
    );
    return { browserContext, page };
  };
  const badScope = (application: TestApplication, extra: Record<string, string> = {}) =>
    authorizeUrl(as, application, { scope: 'contacts:read admin', ...extra });
  /** The bad request's answer in that browser: the held page, on this server. */
  const expectHeld = async (browserContext: BrowserContext, application: TestApplication) => {
    const page = await browserContext.newPage();
    const response = await page.goto(badScope(application));
    expect(response?.status()).toBe(400);
    expect(new URL(page.url()).origin).toBe(new URL(server.baseUrl).origin);
    return page;
  };

  it('sends the error back to an application the signed-in member has authorized', async () => {
    const trusted = await anApplication(server.database.db, {
      name: 'Trusted app',
      redirectUri: callbacks.redirectUri,
    });
    const { browserContext, page } = await browserThatAuthorized(trusted);
    const [callback] = await Promise.all([
      page.waitForRequest((request) => request.url().startsWith(trusted.redirect_uri)),
      page.goto(badScope(trusted, { state: 'bad-scope' })).catch(() => undefined),
    ]);
    const answer = new URL(callback.url());
    expect(answer.searchParams.get('error')).toBe('invalid_scope');
    expect(answer.searchParams.get('state')).toBe('bad-scope');
    await browserContext.close();
  });

  it('holds the errors of an application whose access the member withdrew, though the browser authorized it', async () => {
    const withdrawn = await anApplication(server.database.db, {
      name: 'Withdrawn app',
      redirectUri: callbacks.redirectUri,
    });
    const { browserContext } = await browserThatAuthorized(withdrawn);
    expect(await revokeAuthorizedApp(server.database.db, member.id, withdrawn.client_id)).toBe(true);
    await expectHeld(browserContext, withdrawn);
    await browserContext.close();
  });

  it('holds the error of an application the signed-in member has not authorized (a sign-in that returns to it)', async () => {
    const stranger = await anApplication(server.database.db, {
      name: 'Stranger app',
      redirectUri: callbacks.redirectUri,
    });
    // Signed in through another application's authorization.
    const { browserContext } = await browserThatAuthorized(app);
    const page = await expectHeld(browserContext, stranger);
    await expect(page.getByRole('link', { name: /return to Stranger app/ }).getAttribute('href')).resolves.toContain(
      'error=invalid_scope',
    );
    await browserContext.close();
  });
});

describe('public clients', () => {
  it('must use PKCE (S256), and succeed with it without a secret', async () => {
    const publicApp = await anApplication(server.database.db, {
      name: 'Mobile app',
      redirectUri: callbacks.redirectUri,
      public: true,
    });
    expect(publicApp.client_secret).toBeUndefined();
    const refused = await heldErrorAnswer(await fetch(authorizeUrl(as, publicApp), { redirect: 'manual' }));
    expect(refused.searchParams.get('error')).toBe('invalid_request');

    const verifier = oauth.generateRandomCodeVerifier();
    const challenge = await oauth.calculatePKCECodeChallenge(verifier);
    const callback = await authorize({ code_challenge: challenge, code_challenge_method: 'S256' }, publicApp);
    const result = await tokenRequest(as, {
      grant_type: 'authorization_code',
      client_id: publicApp.client_id,
      redirect_uri: publicApp.redirect_uri,
      code: callback.searchParams.get('code') as string,
      code_verifier: verifier,
    });
    expect(result.status).toBe(200);
    expect(result.body.token_type).toBe('Bearer');
  });
});

describe('client authentication failures (RFC 6749 §5.2, RFC 9110 §15.5.2)', () => {
  const endpoints = [
    ['token', '/oauth/token', { grant_type: 'refresh_token', refresh_token: 'not-a-refresh-token' }],
    ['introspection', '/oauth/introspect', { token: 'not-a-token' }],
    ['revocation', '/oauth/revoke', { token: 'not-a-token' }],
  ] as const;
  const methods = ['client_secret_basic', 'client_secret_post'] as const;
  const failures = [
    ['a wrong secret', () => ({ clientId: app.client_id, secret: 'not-the-secret' })],
    ['an unknown client', () => ({ clientId: 'no-such-client', secret: 'any-secret' })],
  ] as const;
  const cases = endpoints.flatMap(([name, path, form]) =>
    methods.flatMap((method) =>
      failures.map(([failure, credentials]) => [name, method, failure, path, form, credentials] as const),
    ),
  );

  async function postAuthenticated(
    path: string,
    form: Readonly<Record<string, string>>,
    method: (typeof methods)[number],
    { clientId, secret }: { clientId: string; secret: string },
  ): Promise<Response> {
    const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64');
    return fetch(`${server.baseUrl}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        ...(method === 'client_secret_basic' ? { authorization: `Basic ${basic}` } : {}),
      },
      body: new URLSearchParams(
        method === 'client_secret_post' ? { ...form, client_id: clientId, client_secret: secret } : form,
      ),
    });
  }

  it.each(cases)(
    '%s endpoint, %s, %s: 401 invalid_client with one Basic challenge',
    async (_name, method, _failure, path, form, credentials) => {
      const response = await postAuthenticated(path, form, method, credentials());
      expect(response.status).toBe(401);
      expect(((await response.json()) as { error: string }).error).toBe('invalid_client');
      const challenge = response.headers.get('www-authenticate') ?? '';
      expect(challenge).toMatch(new RegExp(`^Basic realm="${server.baseUrl}"`));
      expect(challenge).toContain('error="invalid_client"');
      // oidc-provider's own challenge (Basic header) and this server's (form) never both.
      expect(challenge.match(/Basic /g)).toHaveLength(1);
    },
  );

  it('challenges a client id sent without its secret too', async () => {
    const response = await fetch(`${server.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x', client_id: app.client_id }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Basic realm="[^"]+", error="invalid_client"/);
  });

  it.each(['/oauth/token', '/oauth/introspect', '/oauth/revoke'])(
    'answers a request to %s that names no client at all 401 invalid_client, challenged (RFC 6749 §5.2)',
    async (endpoint) => {
      const response = await fetch(`${server.baseUrl}${endpoint}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x', token: 'x' }),
      });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({
        error: 'invalid_client',
        error_description: 'no client authentication mechanism provided',
      });
      expect(response.headers.get('www-authenticate')).toMatch(/^Basic realm="[^"]+", error="invalid_client"/);
    },
  );

  it.each([
    ['a client id and no secret', () => Buffer.from(`${app.client_id}:`).toString('base64')],
    ['no colon', () => Buffer.from(app.client_id).toString('base64')],
    ['a badly percent-encoded id', () => Buffer.from('a%zz:b').toString('base64')],
    ['not base64', () => '!!!'],
  ])(
    'answers Basic credentials it cannot use (%s) 401 invalid_client, challenged (RFC 6749 §5.2)',
    async (_why, basic) => {
      for (const endpoint of ['/oauth/token', '/oauth/introspect', '/oauth/revoke']) {
        const response = await fetch(`${server.baseUrl}${endpoint}`, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            accept: 'application/json',
            authorization: `Basic ${basic()}`,
          },
          body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x', token: 'x' }),
        });
        expect(response.status, endpoint).toBe(401);
        expect(((await response.json()) as { error: string }).error, endpoint).toBe('invalid_client');
        expect(response.headers.get('www-authenticate'), endpoint).toMatch(
          /^Basic realm="[^"]+", error="invalid_client"/,
        );
      }
    },
  );

  it('answers a bearer token where client credentials belong 401 invalid_client too', async () => {
    const response = await fetch(`${server.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Bearer abc' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x' }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Basic realm="[^"]+", error="invalid_client"/);
  });

  it('adds no challenge to a request that authenticates', async () => {
    const response = await postAuthenticated('/oauth/introspect', { token: 'not-a-token' }, 'client_secret_post', {
      clientId: app.client_id,
      secret: app.client_secret as string,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('www-authenticate')).toBeNull();
  });
});
