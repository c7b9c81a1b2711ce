import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { updateClient } from '../src/lib/registered-applications';
import { type RunningAuthServer, startAuthServer } from './support/auth-server';
import { aMember, anApplication, anAuthorizationCode } from './support/factories';
import { aSignedInMember, type HttpBrowser } from './support/http-browser';
import { discover, heldErrorAnswer, tokenRequest } from './support/oauth-client';

/**
 * An owner edits an application on its settings page (name, redirect URIs) and registers public
 * applications there, without deleting and registering again (which changes the client id and
 * ends every member's access).
 */
let server: RunningAuthServer;
let as: Awaited<ReturnType<typeof discover>>;
beforeAll(async () => {
  server = await startAuthServer();
  as = await discover(server.baseUrl);
});
afterAll(async () => server?.stop());

const signedIn = () => aSignedInMember(server);

const storedClient = (clientId: string) => server.database.db('oauth_clients').where({ client_id: clientId }).first();

/**
 * The owner's edit as another process makes it (another replica's settings page, the CLI):
 * stored, then heard by this server through PostgreSQL's announcement, which arrives a moment
 * after the commit. Waits until the server reads the new redirect URIs, as a browser arriving
 * after that moment would find them.
 */
async function editApplication(ownerId: number, clientId: string, details: { name: string; redirectUris: string }) {
  await updateClient(server.database.db, ownerId, clientId, details);
  await vi.waitFor(async () => {
    const client = await server.auth.provider.Client.find(clientId);
    expect(client?.redirectUris).toEqual(details.redirectUris.split('\n'));
  });
}

/** An authorization request's path (with PKCE) for this client and redirect URI. */
const authorizePath = (clientId: string, redirectUri: string) =>
  `/oauth/authorize?${new URLSearchParams({
    client_id: clientId,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: 'contacts:read',
    state: 'state-1',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  })}`;

/** A Location as the path (and query) a browser follows on this server. */
const pathOf = (location: string | null) => {
  const url = new URL(location as string, server.baseUrl);
  return url.pathname + url.search;
};

/** Where the authorization endpoint sends a browser for this client and redirect URI. */
async function authorizationAnswer(clientId: string, redirectUri: string) {
  const response = await fetch(`${server.baseUrl}${authorizePath(clientId, redirectUri)}`, {
    redirect: 'manual',
    headers: { accept: 'text/html' },
  });
  return { status: response.status, location: response.headers.get('location'), html: await response.text() };
}

/**
 * Follows an authorization request in a signed-in browser up to its consent page, and answers
 * nothing yet: the page's path, its form's action and its CSRF token (to post it later).
 */
async function openConsent(browser: HttpBrowser, clientId: string, redirectUri: string) {
  let page = authorizePath(clientId, redirectUri);
  for (let step = 0; step < 6; step++) {
    const answer = await browser.get(page);
    const action = /action="(\/interaction\/[^"]+\/confirm)"/.exec(answer.html)?.[1];
    const csrf = /name="csrf" value="([^"]+)"/.exec(answer.html)?.[1] as string;
    if (action) return { page, action, csrf };
    page = pathOf(answer.location);
  }
  throw new Error('no consent page');
}

describe('editing an application', () => {
  it('takes the codes issued for a redirect URI it removes: they are no longer exchanged; codes for a kept URI are', async () => {
    const owner = await aMember(server.database.db);
    const app = await anApplication(server.database.db, { owner, redirectUri: 'https://old.example/cb' });
    await editApplication(owner.id, app.client_id, {
      name: 'Two URIs',
      redirectUris: 'https://old.example/cb\nhttps://kept.example/cb',
    });
    const codeFor = (redirectUri: string) =>
      anAuthorizationCode(server.auth.provider, { memberId: owner.id, clientId: app.client_id, redirectUri });
    const [oldCode, keptCode] = [await codeFor('https://old.example/cb'), await codeFor('https://kept.example/cb')];
    // One already exchanged stays: its row is how a replay of it is recognised.
    const exchanged = await codeFor('https://old.example/cb');
    const consumedBefore = (
      await tokenRequest(as, {
        grant_type: 'authorization_code',
        code: exchanged,
        redirect_uri: 'https://old.example/cb',
        client_id: app.client_id,
        client_secret: app.client_secret as string,
      })
    ).status;
    expect(consumedBefore).toBe(200);

    await editApplication(owner.id, app.client_id, {
      name: 'Two URIs',
      redirectUris: 'https://kept.example/cb\nhttps://new.example/cb',
    });
    const exchange = (code: string, redirectUri: string) =>
      tokenRequest(as, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        client_id: app.client_id,
        client_secret: app.client_secret as string,
      });
    expect(await exchange(oldCode, 'https://old.example/cb')).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    });
    expect((await exchange(keptCode, 'https://kept.example/cb')).status).toBe(200);
    const codes = await server.database
      .db('oidc_models')
      .where({ model: 'AuthorizationCode', client_id: app.client_id })
      .whereNotNull('consumed_at');
    expect(codes.map((row) => row.payload.redirectUri)).toContain('https://old.example/cb');
  });

  it('sends nothing to a redirect URI removed while a consent page for it was open: the request is made again and refused', async () => {
    const owner = await aMember(server.database.db);
    const app = await anApplication(server.database.db, { owner, redirectUri: 'https://old.example/cb' });
    const { browser } = await signedIn();
    for (const decision of ['allow', 'deny']) {
      const consent = await openConsent(browser, app.client_id, 'https://old.example/cb');
      await editApplication(owner.id, app.client_id, {
        name: 'Moved',
        redirectUris: 'https://new.example/cb',
      });
      // The page was loaded before the change; its form is posted after it.
      const answered = await browser.post(consent.action, { csrf: consent.csrf, decision });
      expect(answered.location, decision).not.toMatch(/^https:\/\/old\.example/);
      // Made again, the request is refused as any request naming that URI: a page, no redirect.
      const again = await browser.get(pathOf(answered.location));
      expect(again.status, decision).toBe(400);
      expect(again.location, decision).toBeNull();
      expect(again.html, decision).toContain('redirect_uri');
      await editApplication(owner.id, app.client_id, {
        name: 'Back',
        redirectUris: 'https://old.example/cb',
      });
    }
    // A URI still registered: the open consent page answers as before.
    const consent = await openConsent(browser, app.client_id, 'https://old.example/cb');
    await editApplication(owner.id, app.client_id, {
      name: 'Two',
      redirectUris: 'https://old.example/cb\nhttps://new.example/cb',
    });
    const allowed = await browser.post(consent.action, { csrf: consent.csrf, decision: 'allow' });
    const resumed = await browser.get(pathOf(allowed.location));
    expect(resumed.location).toMatch(/^https:\/\/old\.example\/cb\?code=/);
  });

  it("sends no code to a redirect URI removed between the member's Allow and the authorization's last step", async () => {
    const owner = await aMember(server.database.db);
    const app = await anApplication(server.database.db, { owner, redirectUri: 'https://gone.example/cb' });
    await editApplication(owner.id, app.client_id, {
      name: 'Two',
      redirectUris: 'https://gone.example/cb\nhttps://kept.example/cb',
    });
    const { browser } = await signedIn();
    const consent = await openConsent(browser, app.client_id, 'https://gone.example/cb');
    const allowed = await browser.post(consent.action, { csrf: consent.csrf, decision: 'allow' });
    // The member has allowed; the browser is on its way to the authorization's last step…
    const lastStep = new URL(allowed.location as string, server.baseUrl);
    expect(lastStep.pathname).toMatch(/^\/oauth\/authorize\/./);
    // …when the owner removes the URI.
    await editApplication(owner.id, app.client_id, {
      name: 'One',
      redirectUris: 'https://kept.example/cb',
    });
    const answer = await browser.get(lastStep.pathname + lastStep.search);
    expect(answer.status).toBe(400);
    expect(answer.location).toBeNull();
    expect(answer.html).toContain('This application changed its addresses');
    const codes = await server.database
      .db('oidc_models')
      .where({ model: 'AuthorizationCode', client_id: app.client_id });
    expect(codes).toEqual([]);
  });

  it('renames it and replaces its redirect URIs: the old URI is refused at once, the new one accepted', async () => {
    const { member, browser } = await signedIn();
    const app = await anApplication(server.database.db, { owner: member, redirectUri: 'https://old.example/cb' });
    const listing = await browser.get('/settings/applications');
    expect(listing.html).toContain(`href="/settings/applications/${app.client_id}"`);
    // The provider has read the client (and keeps it in memory) before the edit.
    expect((await authorizationAnswer(app.client_id, 'https://old.example/cb')).status).toBe(303);

    const form = await browser.get(`/settings/applications/${app.client_id}`);
    expect(form.status).toBe(200);
    expect(form.html).toContain('https://old.example/cb</textarea>');
    const saved = await browser.submit(
      `/settings/applications/${app.client_id}`,
      `/settings/applications/${app.client_id}`,
      {
        name: 'Renamed app',
        redirect_uris: 'https://new.example/cb\r\nhttp://127.0.0.1:8080/cb',
      },
    );
    expect(saved.status).toBe(303);
    expect(saved.location).toBe('/settings/applications?notice=updated');
    const after = await browser.get(saved.location as string);
    expect(after.html).toContain('role="status">The application was saved.');
    expect(after.html).toContain('Renamed app');

    const row = await storedClient(app.client_id);
    expect(row).toMatchObject({
      name: 'Renamed app',
      redirect_uris: ['https://new.example/cb', 'http://127.0.0.1:8080/cb'],
    });
    const refused = await authorizationAnswer(app.client_id, 'https://old.example/cb');
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('redirect_uri');
    const accepted = await authorizationAnswer(app.client_id, 'https://new.example/cb');
    expect(accepted.status).toBe(303);
    expect(accepted.location).not.toContain('new.example');

    const events = await server.database
      .db('audit_events')
      .where({ member_id: member.id, event: 'application.updated' });
    expect(events).toHaveLength(1);
  });

  it('refuses a bad redirect URI with 422, shows what was typed, and changes nothing', async () => {
    const { member, browser } = await signedIn();
    const app = await anApplication(server.database.db, { owner: member, name: 'Keep me' });
    const action = `/settings/applications/${app.client_id}`;
    const refused = await browser.submit(action, action, { name: 'Changed', redirect_uris: 'http://evil.example/cb' });
    expect(refused.status).toBe(422);
    expect(refused.html).toContain('must use https');
    expect(refused.html).toContain('value="Changed"');
    expect(refused.html).toMatch(/<textarea id="redirect-uris" name="redirect_uris" required aria-invalid="true"/);
    expect(refused.html).toContain('http://evil.example/cb</textarea>');
    expect(await storedClient(app.client_id)).toMatchObject({ name: 'Keep me', redirect_uris: [app.redirect_uri] });
  });

  it("answers 404 for another member's application and changes nothing", async () => {
    const { browser } = await signedIn();
    const others = await anApplication(server.database.db, { name: 'Not yours' });
    const action = `/settings/applications/${others.client_id}`;
    expect((await browser.get(action)).status).toBe(404);
    const { html } = await browser.get('/settings/applications');
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] as string;
    const attempt = await browser.post(action, { csrf, name: 'Hijacked', redirect_uris: 'https://evil.example/cb' });
    expect(attempt.status).toBe(404);
    expect(await storedClient(others.client_id)).toMatchObject({
      name: 'Not yours',
      redirect_uris: [others.redirect_uri],
    });
  });

  it('refuses an edit without the CSRF token', async () => {
    const { member, browser } = await signedIn();
    const app = await anApplication(server.database.db, { owner: member, name: 'Guarded' });
    const forged = await browser.post(`/settings/applications/${app.client_id}`, {
      name: 'Forged',
      redirect_uris: 'https://evil.example/cb',
    });
    expect(forged.status).toBe(403);
    expect(await storedClient(app.client_id)).toMatchObject({ name: 'Guarded' });
  });
});

describe('registering a public application on the page', () => {
  it('stores no secret, shows only the client id, and the application must use PKCE', async () => {
    const { browser } = await signedIn();
    const created = await browser.submit('/settings/applications', '/settings/applications', {
      name: 'Single-page app',
      redirect_uris: 'http://localhost:5173/callback',
      client_type: 'public',
    });
    expect(created.status).toBe(201);
    expect(created.html).not.toContain('id="revealed-secret"');
    const clientId = /id="revealed-client-id">([^<]+)</.exec(created.html)?.[1] as string;
    expect(clientId).toBeTruthy();
    expect(await storedClient(clientId)).toMatchObject({ is_public: true, secret_hash: null });

    const withoutPkce = await fetch(
      `${server.baseUrl}/oauth/authorize?${new URLSearchParams({
        client_id: clientId,
        redirect_uri: 'http://localhost:5173/callback',
        response_type: 'code',
        scope: 'contacts:read',
        state: 's',
      })}`,
      { redirect: 'manual' },
    );
    const back = await heldErrorAnswer(withoutPkce);
    expect(back.origin + back.pathname).toBe('http://localhost:5173/callback');
    expect(back.searchParams.get('error')).toBe('invalid_request');
  });

  it('registers a confidential application by default, with its secret shown once', async () => {
    const { browser } = await signedIn();
    const created = await browser.submit('/settings/applications', '/settings/applications', {
      name: 'Server app',
      redirect_uris: 'https://server.example/cb',
    });
    expect(created.status).toBe(201);
    expect(created.html).toContain('id="revealed-secret"');
    const clientId = /id="revealed-client-id">([^<]+)</.exec(created.html)?.[1] as string;
    expect(await storedClient(clientId)).toMatchObject({ is_public: false });
  });
});
