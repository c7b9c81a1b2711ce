import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAuthorizedApplications } from '../src/lib/applications';
import { revokeAuthorizedApp } from '../src/lib/authorized-apps';
import { type RunningAuthServer, startAuthServer } from './support/auth-server';
import { authorizeInBrowser, launchBrowser } from './support/browser';
import { type CallbackServer, startCallbackServer } from './support/callback-server';
import {
  aMember,
  anAccessToken,
  anApplication,
  aRefreshToken,
  type TestApplication,
  type TestMember,
} from './support/factories';
import {
  authorizeUrl,
  discover,
  insecure,
  introspectAsApi,
  oauth,
  refreshAsApp as refreshAs,
  tokenRequest,
} from './support/oauth-client';

let server: RunningAuthServer;
let browser: Browser;
let as: oauth.AuthorizationServer;
let member: TestMember;
let app: TestApplication;
let callbacks: CallbackServer;

beforeAll(async () => {
  server = await startAuthServer();
  browser = await launchBrowser();
  as = await discover(server.baseUrl);
  callbacks = await startCallbackServer();
  member = await aMember(server.database.db, { name: 'Ada Lovelace' });
  app = await anApplication(server.database.db, { name: 'Analytical Engine', redirectUri: callbacks.redirectUri });
});
afterAll(async () => {
  await browser?.close();
  await callbacks?.close();
  await server?.stop();
});

/** Signs in (or not), approves, and exchanges the code: the seed's flow, start to finish. */
async function obtainTokens(options: { application?: TestApplication; scope?: string; prompt?: string } = {}) {
  const application = options.application ?? app;
  const context = await browser.newContext();
  try {
    const { callback } = await authorizeInBrowser(
      await context.newPage(),
      authorizeUrl(as, application, {
        scope: options.scope ?? '*',
        ...(options.prompt ? { prompt: options.prompt } : {}),
      }),
      application.redirect_uri,
      { email: member.email, password: member.password },
    );
    if (!callback) throw new Error('the browser never reached the redirect URI');
    const exchange = await tokenRequest(as, {
      grant_type: 'authorization_code',
      client_id: application.client_id,
      client_secret: application.client_secret as string,
      redirect_uri: application.redirect_uri,
      code: callback.searchParams.get('code') as string,
    });
    return { callback, exchange };
  } finally {
    await context.close();
  }
}

/** A refresh by the test application, as oauth4webapi sends it (client_secret_post). */
const refreshAsApp = (refreshToken: string, additionalParameters?: Record<string, string>) =>
  refreshAs(as, app, refreshToken, additionalParameters);

describe('the authorization-code flow, driven by a real browser and oauth4webapi', () => {
  it('publishes metadata that points at every endpoint (RFC 8414)', async () => {
    expect(as).toMatchObject({
      issuer: server.baseUrl,
      authorization_endpoint: `${server.baseUrl}/oauth/authorize`,
      token_endpoint: `${server.baseUrl}/oauth/token`,
      introspection_endpoint: `${server.baseUrl}/oauth/introspect`,
      revocation_endpoint: `${server.baseUrl}/oauth/revoke`,
      jwks_uri: `${server.baseUrl}/oauth/jwks`,
      authorization_response_iss_parameter_supported: true,
    });
    expect(as.scopes_supported).toEqual(expect.arrayContaining(['*', 'contacts:read', 'contacts:write']));
    // Every client authentication the endpoints take is advertised for each (absent means Basic only).
    const methods = ['client_secret_basic', 'client_secret_post', 'none'];
    expect(as.token_endpoint_auth_methods_supported).toEqual(methods);
    expect(as.revocation_endpoint_auth_methods_supported).toEqual(methods);
    expect(as.introspection_endpoint_auth_methods_supported).toEqual(methods);
    // No ID tokens here: nothing about them in the OAuth metadata.
    for (const field of ['id_token_signing_alg_values_supported', 'claims_supported', 'subject_types_supported']) {
      expect(as).not.toHaveProperty(field);
    }
    const openid = await (await fetch(`${server.baseUrl}/.well-known/openid-configuration`)).json();
    expect(openid).toMatchObject({ token_endpoint: `${server.baseUrl}/oauth/token` });
  });

  it('signs in, asks for consent, redirects back with code, state and iss, and issues the seed token response', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const client: oauth.Client = { client_id: app.client_id };
    let consentText = '';
    page.on('load', async () => {
      const consent = await page
        .locator('button[name="decision"]')
        .count()
        .catch(() => 0);
      if (consent) consentText = await page.locator('main').innerText();
    });
    const { callback } = await authorizeInBrowser(page, authorizeUrl(as, app), app.redirect_uri, {
      email: member.email,
      password: member.password,
    });
    await context.close();
    expect(callback?.searchParams.get('code')).toMatch(/^[\w-]{20,}$/);
    expect(consentText).toContain('Analytical Engine');
    expect(consentText).toContain('App Developer');
    expect(consentText).toContain('Full access to your contacts');
    // Where the answer goes, so that a look-alike application name cannot hide it.
    expect(consentText).toContain(`goes back to ${new URL(app.redirect_uri).origin}`);

    // oauth4webapi checks state and the RFC 9207 iss parameter.
    const params = oauth.validateAuthResponse(as, client, callback as URL, 'state-123');
    expect(callback?.searchParams.get('iss')).toBe(server.baseUrl);

    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.ClientSecretPost(app.client_secret as string),
      params,
      app.redirect_uri,
      oauth.nopkce,
      insecure,
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
    expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 1209600, scope: '*' });
    expect(typeof tokens.access_token).toBe('string');
    expect(typeof tokens.refresh_token).toBe('string');

    expect(await introspectAsApi(server, tokens.access_token)).toMatchObject({
      active: true,
      sub: String(member.id),
      client_id: app.client_id,
      scope: '*',
      token_type: 'Bearer',
      personal_access_token: false,
    });
  });

  it('returns exactly the documented token response fields, with token_type "Bearer"', async () => {
    const { exchange } = await obtainTokens();
    expect(exchange.status).toBe(200);
    expect(Object.keys(exchange.body).sort()).toEqual([
      'access_token',
      'expires_in',
      'refresh_token',
      'scope',
      'token_type',
    ]);
    expect(exchange.body).toMatchObject({ token_type: 'Bearer', expires_in: 1209600, scope: '*' });
  });

  it('answers with response_mode=form_post: the page posts code, state and iss to the redirect URI', async () => {
    const page = await browser.newPage();
    try {
      const before = callbacks.posted.length;
      await authorizeInBrowser(
        page,
        authorizeUrl(as, app, { response_mode: 'form_post', state: 'posted' }),
        app.redirect_uri,
        {
          email: member.email,
          password: member.password,
        },
      );
      // The form_post page submits itself with its one inline script, allowed by its hash only.
      await page.waitForURL((url) => url.href.startsWith(app.redirect_uri), { timeout: 10_000 });
      const form = callbacks.posted[before];
      expect(form?.get('code')).toBeTruthy();
      expect(form?.get('state')).toBe('posted');
      expect(form?.get('iss')).toBe(as.issuer);
    } finally {
      await page.close();
    }
  });

  it('skips the consent page once the member approved this client and scope', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const seen: string[] = [];
    page.on('framenavigated', (frame) => seen.push(frame.url()));
    const { callback } = await authorizeInBrowser(page, authorizeUrl(as, app), app.redirect_uri, {
      email: member.email,
      password: member.password,
      decision: 'deny', // would be clicked if a consent page appeared
    });
    await context.close();
    expect(callback?.searchParams.get('code')).toMatch(/^[\w-]{20,}$/);
    expect(callback?.searchParams.get('error')).toBeNull();
  });

  it('rotates the refresh token on every refresh, and treats reuse of a rotated one as theft', async () => {
    const { exchange } = await obtainTokens();
    const first = exchange.body as { access_token: string; refresh_token: string };
    const refresh = (refreshToken: string) => refreshAsApp(refreshToken, { scope: '*' });
    const second = await refresh(first.refresh_token);
    const third = await refresh(second.refresh_token as string);
    expect(new Set([first.refresh_token, second.refresh_token, third.refresh_token]).size).toBe(3);
    expect(new Set([first.access_token, second.access_token, third.access_token]).size).toBe(3);
    expect(third.expires_in).toBe(1209600);
    expect(await introspectAsApi(server, third.access_token)).toMatchObject({ active: true });

    // The first refresh token was rotated away; presenting it again revokes the whole grant.
    await expect(refresh(first.refresh_token)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(await introspectAsApi(server, third.access_token)).toEqual({ active: false });
    await expect(refresh(third.refresh_token as string)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(server.logLines.join('\n')).toContain('refresh_token.reuse_detected');
  });

  it('narrows a * grant at refresh (RFC 6749 §6): the access token gets only the scope asked for, the refresh token keeps *', async () => {
    const { exchange } = await obtainTokens({ scope: '*' });
    const narrowed = await refreshAsApp(exchange.body.refresh_token as string, { scope: 'contacts:read' });
    expect(narrowed.scope).toBe('contacts:read');
    expect(await introspectAsApi(server, narrowed.access_token)).toMatchObject({
      active: true,
      scope: 'contacts:read',
    });

    // The rotated refresh token carries the original grant: without a scope, or with *, everything again.
    const whole = await refreshAsApp(narrowed.refresh_token as string);
    expect(whole.scope).toBe('*');
    expect(await introspectAsApi(server, whole.access_token)).toMatchObject({ scope: '*' });
    const both = await refreshAsApp(whole.refresh_token as string, { scope: 'contacts:write contacts:read' });
    expect((both.scope ?? '').split(' ').sort()).toEqual(['contacts:read', 'contacts:write']);
    const star = await refreshAsApp(both.refresh_token as string, { scope: '*' });
    expect(star.scope).toBe('*');

    // A scope the grant does not hold is still refused, and the refresh token survives the refusal.
    for (const scope of ['admin', 'contacts:read admin', 'offline']) {
      await expect(refreshAsApp(star.refresh_token as string, { scope })).rejects.toMatchObject({
        error: 'invalid_scope',
      });
    }
    expect((await refreshAsApp(star.refresh_token as string)).scope).toBe('*');
  });

  it.each([
    ['* offline_access', undefined, '*'],
    ['contacts:read offline_access', undefined, 'contacts:read'],
    // With prompt=consent oidc-provider keeps offline_access (the one case OpenID Connect does);
    // generic client libraries send both to be sure of a refresh token.
    ['* offline_access', 'consent', '*'],
    ['contacts:read offline_access', 'consent', 'contacts:read'],
  ])(
    'ignores offline_access in %s (prompt=%s; refresh tokens come without it): the token response says the scope granted, %s',
    async (requested, prompt, granted) => {
      const { exchange } = await obtainTokens({ scope: requested, ...(prompt ? { prompt } : {}) });
      expect(exchange.status).toBe(200);
      expect(exchange.body.scope).toBe(granted);
      expect(typeof exchange.body.refresh_token).toBe('string');
      const refreshed = await refreshAsApp(exchange.body.refresh_token as string);
      expect(refreshed.scope).toBe(granted);
      // offline_access was never granted, so asking for it at refresh is asking for more.
      await expect(
        refreshAsApp(refreshed.refresh_token as string, { scope: `${granted} offline_access` }),
      ).rejects.toMatchObject({ error: 'invalid_scope', cause: { scope: 'offline_access' } });
    },
  );

  it('never names a scope that * already includes: * contacts:read is granted as *', async () => {
    const { exchange } = await obtainTokens({ scope: '* contacts:read' });
    expect(exchange.body.scope).toBe('*');
    expect(await introspectAsApi(server, exchange.body.access_token as string)).toMatchObject({ scope: '*' });
  });

  it('refuses to widen a narrower grant at refresh: contacts:read cannot become * or contacts:write', async () => {
    const token = await aRefreshToken(server.auth.provider, {
      memberId: member.id,
      clientId: app.client_id,
      scope: 'contacts:read',
    });
    for (const scope of ['*', 'contacts:write', 'contacts:read contacts:write']) {
      await expect(refreshAsApp(token, { scope })).rejects.toMatchObject({ error: 'invalid_scope' });
    }
    expect((await refreshAsApp(token, { scope: 'contacts:read' })).scope).toBe('contacts:read');
  });

  it('accepts a JSON body at the token endpoint, and client_secret_basic as well as client_secret_post', async () => {
    const { exchange } = await obtainTokens();
    const json = await fetch(as.token_endpoint as string, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        grant_type: 'refresh_token',
        refresh_token: exchange.body.refresh_token,
        client_id: app.client_id,
        client_secret: app.client_secret,
        scope: '*',
      }),
    });
    expect(json.status).toBe(200);
    const refreshed = (await json.json()) as { refresh_token: string };
    expect(refreshed).toMatchObject({ token_type: 'Bearer', expires_in: 1209600 });

    const basic = await fetch(as.token_endpoint as string, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${app.client_id}:${app.client_secret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshed.refresh_token }),
    });
    expect(basic.status).toBe(200);
  });

  it('refuses a token request body of another type, naming both types it reads (form and JSON)', async () => {
    const body = `grant_type=refresh_token&client_id=${app.client_id}&client_secret=${app.client_secret}`;
    for (const type of ['text/plain;charset=UTF-8', 'application/vnd.api+json']) {
      const refused = await fetch(as.token_endpoint as string, {
        method: 'POST',
        headers: { 'content-type': type, accept: 'application/json' },
        body,
      });
      expect(refused.status, type).toBe(400);
      expect(await refused.json(), type).toEqual({
        error: 'invalid_request',
        error_description:
          'only application/x-www-form-urlencoded or application/json content-type bodies are supported on POST /oauth/token',
      });
    }
    // Introspection and revocation read forms only, and say so.
    const revocation = await fetch(as.revocation_endpoint as string, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ token: 'x' }),
    });
    expect(((await revocation.json()) as { error_description: string }).error_description).toBe(
      'only application/x-www-form-urlencoded content-type bodies are supported on POST /oauth/revoke',
    );
  });

  it('refuses a JSON token parameter that has no form spelling (a list, an object) with invalid_request, spending nothing', async () => {
    const refreshToken = await aRefreshToken(server.auth.provider, { memberId: member.id, clientId: app.client_id });
    const refresh = (scope: unknown) =>
      fetch(as.token_endpoint as string, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({
          grant_type: 'refresh_token',
          refresh_token: refreshToken,
          client_id: app.client_id,
          client_secret: app.client_secret,
          scope,
        }),
      });
    for (const scope of [['contacts:read'], { read: true }]) {
      const refused = await refresh(scope);
      expect(refused.status).toBe(400);
      expect(await refused.json()).toEqual({
        error: 'invalid_request',
        error_description: 'the JSON parameter scope must be a string',
      });
    }
    // null is a parameter not sent: the whole grant, with the refresh token the refusals left unspent.
    const whole = await refresh(null);
    expect(whole.status).toBe(200);
    expect(await whole.json()).toMatchObject({ scope: '*' });
  });

  it('revokes tokens at the revocation endpoint (RFC 7009)', async () => {
    const { exchange } = await obtainTokens();
    const client: oauth.Client = { client_id: app.client_id };
    const response = await oauth.revocationRequest(
      as,
      client,
      oauth.ClientSecretPost(app.client_secret as string),
      exchange.body.access_token as string,
      insecure,
    );
    await oauth.processRevocationResponse(response);
    expect(await introspectAsApi(server, exchange.body.access_token as string)).toEqual({ active: false });
  });

  it("revoking one access token revokes its grant: the grant's refresh token stops working", async () => {
    const { exchange } = await obtainTokens();
    const client: oauth.Client = { client_id: app.client_id };
    const auth = oauth.ClientSecretPost(app.client_secret as string);
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, auth, exchange.body.access_token as string, insecure),
    );
    const refresh = await oauth.refreshTokenGrantRequest(as, client, auth, exchange.body.refresh_token as string, {
      additionalParameters: { scope: '*' },
      ...insecure,
    });
    expect(refresh.status).toBe(400);
    expect(await refresh.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('sets no cookie on token and introspection answers (CSRF state belongs to the pages only)', async () => {
    const { exchange } = await obtainTokens();
    const refreshed = await fetch(as.token_endpoint as string, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${app.client_id}:${app.client_secret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: exchange.body.refresh_token as string }),
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.headers.getSetCookie()).toEqual([]);
    const introspection = await fetch(`${server.baseUrl}/oauth/introspect`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${server.config.secrets.introspectionClientId}:${server.config.secrets.introspectionClientSecrets[0]}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ token: exchange.body.access_token as string }),
    });
    expect(introspection.status).toBe(200);
    expect(introspection.headers.getSetCookie()).toEqual([]);
    // JSON answers too are never sniffed as another type.
    for (const answer of [refreshed, introspection])
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it("keeps each sign-in's tokens apart: one install signing out or replaying a refresh token leaves the others working", async () => {
    const client: oauth.Client = { client_id: app.client_id };
    const auth = oauth.ClientSecretPost(app.client_secret as string);
    const refresh = (refreshToken: string) => refreshAsApp(refreshToken);
    const revoke = async (token: string) =>
      oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, token, insecure));
    // Two browsers (a phone and a laptop): the second is not asked to consent again.
    const phone = (await obtainTokens()).exchange.body as { access_token: string; refresh_token: string };
    // The approval is older than this test: its consent has ten days left.
    const tenDays = Math.floor(Date.now() / 1000) + 10 * 24 * 3600;
    await server.database.db.raw(
      `update oidc_models set expires_at = to_timestamp(?), payload = jsonb_set(payload, '{exp}', to_jsonb(?::bigint))
        where model = 'Grant' and account_id = ? and client_id = ?`,
      [tenDays, tenDays, String(member.id), app.client_id],
    );
    const laptop = (await obtainTokens()).exchange.body as { access_token: string; refresh_token: string };
    const tablet = (await obtainTokens()).exchange.body as { access_token: string; refresh_token: string };

    // The phone's app signs out (RFC 7009): its tokens end, the laptop's do not.
    await revoke(phone.refresh_token);
    expect(await introspectAsApi(server, phone.access_token)).toEqual({ active: false });
    expect(await introspectAsApi(server, laptop.access_token)).toMatchObject({ active: true });

    // The laptop's rotated-away refresh token is replayed (theft): the laptop's chain ends, the tablet's does not.
    const rotated = await refresh(laptop.refresh_token);
    await expect(refresh(laptop.refresh_token)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(await introspectAsApi(server, rotated.access_token)).toEqual({ active: false });
    expect(await introspectAsApi(server, tablet.access_token)).toMatchObject({ active: true });
    expect((await refresh(tablet.refresh_token)).access_token).toBeTruthy();

    // Each install's grant ends when the consent they copy does (GRANT_TTL counts from the approval).
    const grantExpiries = await server.database
      .db('oidc_models')
      .where({ model: 'Grant', account_id: String(member.id), client_id: app.client_id })
      .pluck('expires_at');
    for (const expiry of grantExpiries as Date[]) expect(Math.abs(expiry.getTime() / 1000 - tenDays)).toBeLessThan(60);

    // The member sees the application once, and withdrawing its access ends every install's tokens.
    const apps = await listAuthorizedApplications(server.database.db, member.id);
    expect(apps.filter((listed) => listed.client_id === app.client_id)).toHaveLength(1);
    await revokeAuthorizedApp(server.database.db, member.id, app.client_id);
    const after = await refresh(tablet.refresh_token).catch((error: unknown) => error);
    expect(after).toMatchObject({ error: 'invalid_grant' });
  });

  it("lets a client introspect its own tokens but not another client's", async () => {
    const { exchange } = await obtainTokens();
    const other = await anApplication(server.database.db, { name: 'Nosy app', redirectUri: callbacks.redirectUri });
    const ask = async (application: TestApplication) =>
      oauth.processIntrospectionResponse(
        as,
        { client_id: application.client_id },
        await oauth.introspectionRequest(
          as,
          { client_id: application.client_id },
          oauth.ClientSecretPost(application.client_secret as string),
          exchange.body.access_token as string,
          insecure,
        ),
      );
    expect(await ask(app)).toMatchObject({ active: true });
    expect(await ask(other)).toEqual({ active: false });
  });

  it('tells a public client nothing, not even about its own tokens (it cannot authenticate)', async () => {
    const spa = await anApplication(server.database.db, { name: 'Single-page app', public: true });
    const token = await anAccessToken(server.auth.provider, { memberId: member.id, clientId: spa.client_id });
    const response = await fetch(`${server.baseUrl}/oauth/introspect`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, client_id: spa.client_id }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ active: false });
    expect(await introspectAsApi(server, token)).toMatchObject({ active: true, client_id: spa.client_id });
  });
});

describe("rotating the contacts API's introspection secret (INTROSPECTION_CLIENT_SECRET=OLD,NEW)", () => {
  it('accepts both secrets of the rotation and no other, so replicas on either keep working', async () => {
    const secrets = { ...server.config.secrets, introspectionClientSecrets: ['o'.repeat(43), 'n'.repeat(43)] };
    const rotating = await startAuthServer({ secrets });
    try {
      const owner = await aMember(rotating.database.db);
      const application = await anApplication(rotating.database.db, { redirectUri: callbacks.redirectUri });
      const token = await anAccessToken(rotating.auth.provider, {
        memberId: owner.id,
        clientId: application.client_id,
      });
      const introspectWith = async (secret: string) => {
        const response = await fetch(`${rotating.baseUrl}/oauth/introspect`, {
          method: 'POST',
          headers: {
            authorization: `Basic ${Buffer.from(`${secrets.introspectionClientId}:${secret}`).toString('base64')}`,
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: new URLSearchParams({ token }),
        });
        return { status: response.status, active: ((await response.json()) as { active?: boolean }).active };
      };
      expect(await introspectWith('o'.repeat(43))).toEqual({ status: 200, active: true });
      expect(await introspectWith('n'.repeat(43))).toEqual({ status: 200, active: true });
      expect((await introspectWith('x'.repeat(43))).status).toBe(401);
      expect((await introspectWith(`${'o'.repeat(43)} ${'n'.repeat(43)}`)).status).toBe(401);
    } finally {
      await rotating.stop();
    }
  });
});
