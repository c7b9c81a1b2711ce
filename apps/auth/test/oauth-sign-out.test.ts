import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningAuthServer, startAuthServer } from './support/auth-server';
import { type AuthorizeOutcome, authorizeWithHttpBrowser } from './support/authorize-with-http-browser';
import { aMember, anApplication, type TestApplication } from './support/factories';
import { type HttpBrowser, httpBrowser } from './support/http-browser';
import { discover, introspectAsApi, oauth, tokenRequest } from './support/oauth-client';

let server: RunningAuthServer;
let app: TestApplication;
beforeAll(async () => {
  server = await startAuthServer();
  app = await anApplication(server.database.db);
});
afterAll(async () => server?.stop());

const authorizePath = (params: Record<string, string> = {}) =>
  `/oauth/authorize?${new URLSearchParams({
    client_id: app.client_id,
    redirect_uri: app.redirect_uri,
    response_type: 'code',
    scope: 'contacts:read',
    state: 'st',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWQTpqz0oaUZc',
    code_challenge_method: 'S256',
    ...params,
  })}`;

const authorize = (browser: HttpBrowser, params: Record<string, string> = {}): Promise<AuthorizeOutcome> =>
  authorizeWithHttpBrowser(browser, server.baseUrl, authorizePath(params), app.redirect_uri);

describe('signing out also ends the OAuth sign-in', () => {
  it('asks for a sign-in again after the member signs out of this browser', async () => {
    const member = await aMember(server.database.db);
    const browser = httpBrowser(server.baseUrl);
    await browser.signIn(member.email, member.password);
    expect((await authorize(browser)).code).toBeTruthy();

    await browser.submit('/settings/sessions', '/logout', {});
    const afterSignOut = await authorize(browser);
    expect(afterSignOut).toMatchObject({ signInPage: true, code: undefined });
  });

  it('asks for a sign-in again when another browser signed this one out', async () => {
    const member = await aMember(server.database.db);
    const laptop = httpBrowser(server.baseUrl, 'Laptop/1.0');
    const phone = httpBrowser(server.baseUrl, 'Phone/2.0');
    await phone.signIn(member.email, member.password);
    expect((await authorize(phone)).code).toBeTruthy();

    await laptop.signIn(member.email, member.password);
    const sessions = await laptop.get('/settings/sessions');
    const phoneRow = sessions.html.split('<tr class="session">').find((row) => row.includes('Phone/2.0')) as string;
    await laptop.submit('/settings/sessions', /action="([^"]+)"/.exec(phoneRow)?.[1] as string, {});

    expect(await authorize(phone)).toMatchObject({ signInPage: true, code: undefined });
  });

  it('acts as the member now signed in, never as the one before', async () => {
    const first = await aMember(server.database.db);
    const second = await aMember(server.database.db);
    const browser = httpBrowser(server.baseUrl);
    await browser.signIn(first.email, first.password);
    expect((await authorize(browser)).code).toBeTruthy();

    await browser.submit('/settings/sessions', '/logout', {});
    await browser.signIn(second.email, second.password);
    const flow = await authorize(browser);
    expect(flow.code).toBeTruthy();
    expect(flow.consentFor).toBe(second.email);
  });

  it('shows the sign-in page when the client asks for a fresh sign-in (prompt=login)', async () => {
    const member = await aMember(server.database.db);
    const browser = httpBrowser(server.baseUrl);
    await browser.signIn(member.email, member.password);
    expect((await authorize(browser)).code).toBeTruthy();
    expect(await authorize(browser, { prompt: 'login' })).toMatchObject({ signInPage: true });
  });
});

/** Loads `path` and follows redirects within this site: the page it ends on, and its path. */
async function pageAfterRedirects(browser: HttpBrowser, path: string): Promise<{ path: string; html: string }> {
  let current = path;
  for (let step = 0; step < 10; step++) {
    const answer = await browser.get(current);
    if (answer.status !== 302 && answer.status !== 303) return { path: current, html: answer.html };
    const next = new URL(answer.location as string, server.baseUrl);
    if (next.origin !== server.baseUrl) throw new Error(`left the site for ${next.href}`);
    current = next.pathname + next.search;
  }
  throw new Error('too many redirects');
}

const formAction = (html: string, step: string) =>
  new RegExp(`action="(/interaction/[^"]+/${step})"`).exec(html)?.[1] as string;

describe('"Use another account" on the consent page', () => {
  it('signs this browser out and asks the application’s request again, for the member who signs in next', async () => {
    const owner = await aMember(server.database.db);
    const visitor = await aMember(server.database.db);
    const browser = httpBrowser(server.baseUrl);
    await browser.signIn(owner.email, owner.password);
    const verifier = oauth.generateRandomCodeVerifier();
    const request = authorizePath({ code_challenge: await oauth.calculatePKCECodeChallenge(verifier), state: 'kept' });

    const consent = await pageAfterRedirects(browser, request);
    expect(consent.html).toContain(`(${owner.email})`);
    const switched = await browser.submit(consent.path, formAction(consent.html, 'switch-account'), {});
    expect(switched.status).toBe(303);
    // The same request again (state included), now with a sign-in: the owner's session is over.
    const again = new URL(switched.location as string, server.baseUrl);
    expect(again.searchParams.get('state')).toBe('kept');
    expect(again.searchParams.get('prompt')).toBe('login');
    expect((await browser.get('/settings/sessions')).location).toMatch(/^\/login\b/);

    const signIn = await pageAfterRedirects(browser, again.pathname + again.search);
    expect(signIn.html).toContain('name="password"');
    const signedIn = await browser.submit(signIn.path, formAction(signIn.html, 'login'), {
      email: visitor.email,
      password: visitor.password,
    });
    const visitorConsent = await pageAfterRedirects(browser, new URL(signedIn.location as string).pathname);
    expect(visitorConsent.html).toContain(`(${visitor.email})`);
    expect(visitorConsent.html).not.toContain(owner.email);

    const allowed = await browser.submit(visitorConsent.path, formAction(visitorConsent.html, 'confirm'), {
      decision: 'allow',
    });
    const callback = await followToApplication(browser, allowed.location as string);
    expect(callback.searchParams.get('state')).toBe('kept');
    const tokens = await tokenRequest(await discover(server.baseUrl), {
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code') as string,
      redirect_uri: app.redirect_uri,
      client_id: app.client_id,
      client_secret: app.client_secret as string,
      code_verifier: verifier,
    });
    expect(tokens.status).toBe(200);
    expect(await introspectAsApi(server, tokens.body.access_token as string)).toMatchObject({
      active: true,
      sub: String(visitor.id),
    });
  });
});

/** Follows redirects until the one that leaves for the application's redirect URI. */
async function followToApplication(browser: HttpBrowser, location: string): Promise<URL> {
  let next = new URL(location, server.baseUrl);
  for (let step = 0; step < 10 && !next.href.startsWith(app.redirect_uri); step++) {
    const answer = await browser.get(next.pathname + next.search);
    next = new URL(answer.location as string, server.baseUrl);
  }
  return next;
}

describe('a consent page left open across a sign-out', () => {
  /** Signs `browser` in as `member` and walks an authorization request to its consent page. */
  async function consentPageOf(browser: HttpBrowser, member: { email: string; password: string }) {
    await browser.signIn(member.email, member.password);
    const consent = await pageAfterRedirects(browser, authorizePath());
    expect(consent.html).toContain(`(${member.email})`);
    return { path: consent.path, confirm: formAction(consent.html, 'confirm') };
  }

  /** Submits the old page's "Allow" (with a CSRF token the browser holds now) and follows on. */
  async function allowOnOldPage(browser: HttpBrowser, confirm: string): Promise<AuthorizeOutcome> {
    const csrf = /name="csrf" value="([^"]+)"/.exec((await browser.get('/login')).html)?.[1] as string;
    const answer = await browser.post(confirm, { csrf, decision: 'allow' });
    expect(answer.status).toBe(303);
    const next = new URL(answer.location as string, server.baseUrl);
    expect(next.href.startsWith(app.redirect_uri)).toBe(false);
    return authorizeWithHttpBrowser(browser, server.baseUrl, next.pathname + next.search, app.redirect_uri);
  }

  it('issues no code once the member has signed out: the request asks for a sign-in again', async () => {
    const member = await aMember(server.database.db);
    const browser = httpBrowser(server.baseUrl);
    const old = await consentPageOf(browser, member);
    await browser.submit('/settings/sessions', '/logout', {});

    expect(await allowOnOldPage(browser, old.confirm)).toMatchObject({ signInPage: true, code: undefined });
  });

  it('is not shown again once the member has signed out: reloading it asks the request again', async () => {
    const member = await aMember(server.database.db);
    const browser = httpBrowser(server.baseUrl);
    const old = await consentPageOf(browser, member);
    await browser.submit('/settings/sessions', '/logout', {});

    const reloaded = await browser.get(old.path);
    expect(reloaded.status).toBe(303);
    expect(reloaded.location).toMatch(/^\/oauth\/authorize\?/);
    const flow = await authorizeWithHttpBrowser(browser, server.baseUrl, reloaded.location as string, app.redirect_uri);
    expect(flow).toMatchObject({ signInPage: true, code: undefined });
  });

  it('issues no code once another browser has signed this one out', async () => {
    const member = await aMember(server.database.db);
    const stolen = httpBrowser(server.baseUrl, 'Stolen/1.0');
    const laptop = httpBrowser(server.baseUrl, 'Laptop/1.0');
    const old = await consentPageOf(stolen, member);
    await laptop.signIn(member.email, member.password);
    const sessions = await laptop.get('/settings/sessions');
    const stolenRow = sessions.html.split('<tr class="session">').find((row) => row.includes('Stolen/1.0')) as string;
    await laptop.submit('/settings/sessions', /action="([^"]+)"/.exec(stolenRow)?.[1] as string, {});

    expect(await allowOnOldPage(stolen, old.confirm)).toMatchObject({ signInPage: true, code: undefined });
  });

  it('issues no code when the member signs out between allowing and the redirect that carries the code', async () => {
    const member = await aMember(server.database.db);
    const browser = httpBrowser(server.baseUrl);
    const old = await consentPageOf(browser, member);
    const allowed = await browser.submit(old.path, old.confirm, { decision: 'allow' });
    await browser.submit('/settings/sessions', '/logout', {});

    const resumed = new URL(allowed.location as string, server.baseUrl);
    const flow = await authorizeWithHttpBrowser(browser, server.baseUrl, resumed.pathname, app.redirect_uri);
    expect(flow).toMatchObject({ signInPage: true, code: undefined });
  });

  it('never consents for the member who left when another has signed in since: the one signed in is asked', async () => {
    const first = await aMember(server.database.db);
    const second = await aMember(server.database.db);
    const browser = httpBrowser(server.baseUrl);
    const old = await consentPageOf(browser, first);
    await browser.submit('/settings/sessions', '/logout', {});
    await browser.signIn(second.email, second.password);

    const flow = await allowOnOldPage(browser, old.confirm);
    expect(flow.consentFor).toBe(second.email);
    expect(flow.code).toBeTruthy();
    const grants = await server.database
      .db('oidc_models')
      .where({ model: 'Grant', account_id: String(first.id) })
      .pluck('id_hash');
    expect(grants).toEqual([]);
  });
});
